import { describe, expect, it } from 'vitest'
import { fromPlaces, placeName, toRecent, transferBody, transferError, warehouseFromPlaces, type Place } from './logic.ts'

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
  it('moves warehouse to warehouse where they keep no storage locations', () => {
    const warehouses = [
      { ID: 'W4', Code: '4', UseStorageLocations: 0 },
      { ID: 'W5', Code: '5', UseStorageLocations: 0 },
      { ID: 'W1', Code: '1', UseStorageLocations: 1 },
    ]
    const positions = [
      { ItemId: 'i', CurrentStock: 6, Warehouse: 'W5' },
      { ItemId: 'i', CurrentStock: 4, Warehouse: 'W4' },
      { ItemId: 'i', CurrentStock: 0, Warehouse: 'W4' },
      // a located warehouse's stock is offered per storage location, not here
      { ItemId: 'i', CurrentStock: 9, Warehouse: 'W1' },
    ]
    const whole = warehouseFromPlaces(positions, warehouses)
    expect(whole).toEqual([
      { location: '', locationCode: '', warehouse: 'w4', warehouseCode: '4', stock: 4 },
      { location: '', locationCode: '', warehouse: 'w5', warehouseCode: '5', stock: 6 },
    ])
    const [w4, w5] = whole
    expect(placeName(w4)).toBe('4')
    expect(transferError('4', w4, w5)).toBeNull()
    // the same warehouse without locations: nothing to move between
    expect(transferError('1', w4, { ...w4 })).toBe('transfers.error.sameLocation')
    expect(transferError('5', w4, w5)).toBe('transfers.error.moreThanStock')
    // no storage location is sent for either side
    expect(transferBody('item', w4, w5, 2, 'why')).toEqual({
      WarehouseFrom: 'w4',
      WarehouseTo: 'w5',
      Description: 'why',
      process: true,
      WarehouseTransferLines: [{ Item: 'item', Quantity: 2 }],
    })
    // into a located warehouse: only the destination's location
    expect(transferBody('item', w4, to, 1, 'why').WarehouseTransferLines).toEqual([{ Item: 'item', Quantity: 1, StorageLocationTo: 'l5' }])
    // without the flag (an older copy), no warehouse is taken as one without locations
    expect(warehouseFromPlaces(positions, [{ ID: 'W4', Code: '4' }])).toEqual([])
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
