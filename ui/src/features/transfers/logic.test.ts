import { describe, expect, it } from 'vitest'
import { fromPlaces, toRecent, transferBody, transferError, type Place } from './logic.ts'

const rows = [
  { Item: 'i', Stock: 5, StorageLocation: 'L2', StorageLocationCode: 'A01-02', Warehouse: 'W1', WarehouseCode: '1' },
  { Item: 'i', Stock: 0, StorageLocation: 'L3', StorageLocationCode: 'A01-03', Warehouse: 'W1', WarehouseCode: '1' },
  { Item: 'i', Stock: 2, StorageLocation: 'L1', StorageLocationCode: 'A01-01', Warehouse: 'W1', WarehouseCode: '1' },
  { Item: 'i', Stock: 7, StorageLocation: 'L9', StorageLocationCode: 'B01-01', Warehouse: 'W2', WarehouseCode: '10' },
  { Item: 'i', Stock: 3, StorageLocation: null, Warehouse: 'W1', WarehouseCode: '1' },
]
const to: Place = { location: 'l5', locationCode: 'C01', warehouse: 'w2', warehouseCode: '10' }

describe('transfers', () => {
  const places = fromPlaces(rows)
  it('offers storage locations with stock, by warehouse and location', () => {
    expect(places.map((p) => p.locationCode)).toEqual(['A01-01', 'A01-02', 'B01-01'])
    expect(places[0]).toEqual({ location: 'l1', locationCode: 'A01-01', warehouse: 'w1', warehouseCode: '1', stock: 2 })
  })
  it('validates quantity, stock at the source, and a different destination', () => {
    const from = places[1]
    expect(transferError('3', from, to)).toBeNull()
    expect(transferError('5', from, to)).toBeNull()
    expect(transferError('3', undefined, to)).toBe('transfers.error.noFrom')
    expect(transferError('3', from, undefined)).toBe('transfers.error.noTo')
    expect(transferError('3', from, { ...from })).toBe('transfers.error.sameLocation')
    expect(transferError('x', from, to)).toBe('transfers.error.notNumber')
    expect(transferError('0', from, to)).toBe('transfers.error.notPositive')
    expect(transferError('-1', from, to)).toBe('transfers.error.notPositive')
    expect(transferError('5,5', from, to)).toBe('transfers.error.moreThanStock')
    // pieces: whole numbers only; a unit with decimals takes 2,5
    expect(transferError('2,5', from, to, false)).toBe('transfers.error.notWhole')
    expect(transferError('2,5', from, to, true)).toBeNull()
    expect(transferError('2', from, to, false)).toBeNull()
  })
  it('builds a processed transfer between the two warehouses', () => {
    expect(transferBody('item', places[1], to, 2, 'why')).toEqual({
      WarehouseFrom: 'w1',
      WarehouseTo: 'w2',
      Description: 'why',
      process: true,
      WarehouseTransferLines: [{ Item: 'item', Quantity: 2, StorageLocationFrom: 'l2', StorageLocationTo: 'l5' }],
    })
  })
  it('lists recent transfers newest first with their lines', () => {
    const r = toRecent(
      [
        { TransferID: 'T1', TransferNumber: 1, EntryDate: '/Date(1794096000000)/', Status: 50, WarehouseFromCode: '1', WarehouseToCode: '10' },
        { TransferID: 't2', TransferNumber: 2, EntryDate: '/Date(1794182400000)/', Status: 10 },
      ],
      [{ TransferID: 't1', ItemCode: 'BOLT', Quantity: 2, StorageLocationFromCode: 'A01', StorageLocationToCode: 'C01' }],
    )
    expect(r.map((x) => [x.number, x.processed, x.lines.length])).toEqual([
      ['2', false, 0],
      ['1', true, 1],
    ])
  })
})
