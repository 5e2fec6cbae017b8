import { describe, expect, it } from 'vitest'
import { noticeFor } from './outage.ts'

const status = (reachable: boolean, pending: number, failed: number, since_ms: number | null = 1_700_000_000_000) => ({
  provider: { reachable, since_ms, last_error: reachable ? null : 'network error' },
  outbox: { pending, failed },
  droppedProperties: [],
})

describe('noticeFor', () => {
  it('says nothing while Exact answers and the queue is empty', () => {
    expect(noticeFor(undefined)).toBeNull()
    expect(noticeFor(status(true, 0, 0))).toBeNull()
  })

  it('puts an outage first, with its start and the waiting writes', () => {
    expect(noticeFor(status(false, 3, 1))).toEqual({ kind: 'outage', since: new Date(1_700_000_000_000), pending: 3 })
    expect(noticeFor(status(false, 0, 0, null))).toEqual({ kind: 'outage', since: null, pending: 0 })
  })

  it('then writes on their way, then refused ones', () => {
    expect(noticeFor(status(true, 2, 1))).toEqual({ kind: 'sending', pending: 2 })
    expect(noticeFor(status(true, 0, 4))).toEqual({ kind: 'refused', failed: 4 })
  })

  it('counts writes that wait for a sign-in as waiting, never as refused', () => {
    expect(noticeFor(status(true, 2, 0), 'signInNeeded')).toEqual({ kind: 'waiting', pending: 2 })
    expect(noticeFor(status(true, 0, 0), 'signInNeeded')).toBeNull()
  })
})
