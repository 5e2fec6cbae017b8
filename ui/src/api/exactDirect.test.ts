import { describe, expect, it } from 'vitest'
import { againWhileStored, STORED_RETRY_MS } from './exactDirect.ts'

describe('againWhileStored', () => {
  it('asks again soon while the answer is the stored copy, and not once Exact Online answered', () => {
    expect(againWhileStored({ state: { data: { asOf: 1_795_000_000_000 } } })).toBe(STORED_RETRY_MS)
    expect(againWhileStored({ state: { data: { asOf: null } } })).toBe(false)
    expect(againWhileStored({ state: {} })).toBe(false)
  })
})
