import { describe, expect, it } from 'vitest'
import type { LocationStock, WarehouseStock } from '../api/scan.ts'
import { cardStock, stockToIssueFrom } from './itemStock.ts'

const W1 = 'aaaaaaaa-0000-0000-0000-000000000001'
const W2 = 'aaaaaaaa-0000-0000-0000-000000000002'

const location = (id: string, code: string, stock: number): LocationStock => ({
  ID: id,
  Item: 'item',
  Stock: stock,
  StorageLocation: `loc-${code}`,
  StorageLocationCode: code,
  StorageLocationDescription: null,
  Warehouse: W1,
  WarehouseCode: '1',
  WarehouseDescription: 'Main',
})

const warehouse = (id: string, wh: string, code: string, stock: number): WarehouseStock => ({
  ID: id,
  ItemId: 'item',
  CurrentStock: stock,
  Warehouse: wh,
  WarehouseCode: code,
  WarehouseDescription: null,
})

describe('the item card stock', () => {
  it('lists a warehouse without storage locations from its stock position', () => {
    const { rows, total } = cardStock([], [warehouse('sp2', W2, '2', 12)])
    expect(rows).toEqual([{ key: 'sp2', storageLocation: null, locationCode: null, locationDescription: null, warehouseCode: '2', stock: 12 }])
    expect(total).toBe(12)
  })

  it('shows the locations of a warehouse that has them, and not its position a second time', () => {
    // the warehouse's position (matched case-blind, as ids may differ in case) sums its locations
    const { rows, total } = cardStock(
      [location('b', 'B-2', 3), location('a', 'A-1', 4)],
      [warehouse('sp1', W1.toUpperCase(), '1', 7), warehouse('sp2', W2, '2', 5), warehouse('sp3', 'w3', '3', 0)],
    )
    expect(rows.map((r) => [r.locationCode, r.warehouseCode, r.stock])).toEqual([
      ['A-1', '1', 4],
      ['B-2', '1', 3],
      [null, '2', 5],
    ])
    expect(total).toBe(12)
  })

  it('counts the locations while the stock positions are not read', () => {
    expect(cardStock([location('a', 'A-1', 4)], undefined).total).toBe(4)
    expect(cardStock(undefined, undefined)).toEqual({ rows: [], total: 0 })
  })
})

describe('the stock an issue books from', () => {
  const locations = [location('a', 'A1', 29), location('b', 'B1', 4)]
  it('is the chosen storage location', () => {
    expect(stockToIssueFrom('LOC-A1', W1, locations, [])).toBe(29)
    expect(stockToIssueFrom('loc-none', W1, locations, [])).toBe(0)
  })
  it("is the order's warehouse when the default location is used", () => {
    expect(stockToIssueFrom('', W1, locations, [warehouse('w', W1, '1', 40)])).toBe(40)
    // no stock position for the warehouse: its locations' sum
    expect(stockToIssueFrom('', W1, locations, [warehouse('w', W2, '2', 7)])).toBe(33)
  })
  it('is unknown while the stock is being read', () => {
    expect(stockToIssueFrom('loc-A1', W1, undefined, undefined)).toBeNull()
    expect(stockToIssueFrom('', null, locations, [])).toBeNull()
  })
})
