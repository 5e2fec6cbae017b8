import { describe, expect, it } from 'vitest'
import { toRecentCounts } from './counts.ts'

describe('toRecentCounts', () => {
  it('joins each counted line to its count, newest first, drafts told from processed ones', () => {
    const headers = [
      { StockCountID: 'AAA', StockCountNumber: 7, StockCountDate: '/Date(1780000000000)/', Status: 21, WarehouseCode: '1', CreatorFullName: 'Eva' },
      { StockCountID: 'bbb', StockCountNumber: 8, StockCountDate: '/Date(1780090000000)/', Status: 12, WarehouseCode: '1', CreatorFullName: 'Jan' },
    ]
    const lines = [
      { StockCountID: 'aaa', StorageLocationCode: 'A-01', QuantityNew: 4 },
      { StockCountID: 'BBB', StorageLocationCode: '', QuantityNew: null },
      { StockCountID: 'ccc', StorageLocationCode: 'A-02', QuantityNew: 1 },
    ]
    expect(toRecentCounts(lines, headers)).toEqual([
      { id: 'bbb', number: '8', date: 1780090000000, processed: false, by: 'Jan', location: '1', counted: null },
      { id: 'AAA', number: '7', date: 1780000000000, processed: true, by: 'Eva', location: '1 · A-01', counted: 4 },
    ])
  })
})
