import { describe, expect, it } from 'vitest'
import type { OutboxEntry } from './outbox.ts'
import { combine } from './writes.ts'

const entry = (state: OutboxEntry['state'], error: string | null = null) => ({ state, error }) as OutboxEntry

describe('combine', () => {
  it('a refusal wins and carries its message', () => {
    expect(combine([entry('delivered'), entry('failed', 'Verplicht: Item')])).toEqual({ state: 'failed', message: 'Verplicht: Item' })
  })
  it('delivered only when every entry is', () => {
    expect(combine([entry('delivered'), entry('delivered')]).state).toBe('delivered')
    expect(combine([entry('delivered'), entry('pending')]).state).toBe('pending')
    expect(combine([entry('sending'), entry('pending')]).state).toBe('sending')
    expect(combine([]).state).toBe('pending')
  })
})
