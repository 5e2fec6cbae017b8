import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { APP_LOCAL_KEYS, STORAGE_KEYS } from '../lib/storage.ts'
import { json } from '../test/fixtures.ts'
import { fetchNumbers, keptNumbers } from './tracking.ts'

const answer = (item: string) => ({
  item,
  tracking: 'batch',
  serials: [],
  batches: [{ number: `B-${item}`, quantity: 1, expiry: null, warehouse: 'w', warehouse_code: '1', location: 'l', location_code: 'A' }],
})

beforeEach(() => localStorage.clear())
afterEach(() => vi.unstubAllGlobals())

describe('numbers kept for a dead spot', () => {
  it('keeps the last answer per item and place, the 200 most recent, and goes at logout', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => json(answer(new URL(url, 'http://x').searchParams.get('item') ?? ''))),
    )
    for (let i = 0; i <= 200; i++) await fetchNumbers({ item: `item-${i}`, warehouse: 'W', location: 'L' }, () => 1000 + i)
    // the place is compared without regard to case (Exact's GUIDs come in either)
    expect(keptNumbers({ item: 'ITEM-200', warehouse: 'w', location: 'l' })).toEqual({ value: answer('item-200'), asOf: 1200 })
    expect(keptNumbers({ item: 'item-1', warehouse: 'w', location: 'l' })?.asOf).toBe(1001)
    // the oldest went to make room
    expect(keptNumbers({ item: 'item-0', warehouse: 'w', location: 'l' })).toBeNull()
    // another place of the same item was never read
    expect(keptNumbers({ item: 'item-1', warehouse: 'w', location: null })).toBeNull()
    expect(APP_LOCAL_KEYS).toContain(STORAGE_KEYS.keptNumbers)
  })
})
