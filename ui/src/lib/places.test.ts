import { describe, expect, it } from 'vitest'
import type { LocationRef } from './scan.ts'
import { locationLabel } from '../components/scanFields.tsx'
import { isWarehousePlace, locationOf, placesInWarehouse, placesOf, sourcesOf, unlocatedIds, type WarehouseRef } from './places.ts'

const W1 = 'AAAAAAAA-0000-4000-8000-000000000001'
const W4 = 'aaaaaaaa-0000-4000-8000-000000000004'
const W5 = 'aaaaaaaa-0000-4000-8000-000000000005'
const warehouses: WarehouseRef[] = [
  { ID: W1, Code: '1', Description: 'Hoofdmagazijn', UseStorageLocations: 1 },
  { ID: W5, Code: '5', Description: 'Servicebussen', UseStorageLocations: 0 },
  { ID: W4, Code: '4', Description: 'Werkplaats', UseStorageLocations: false },
  // a copy read before the flag was: taken as keeping storage locations
  { ID: 'aaaaaaaa-0000-4000-8000-000000000009', Code: '9', Description: 'Old' },
]
const A1: LocationRef = { ID: 'l1', Code: 'A01-01', Warehouse: W1.toLowerCase(), WarehouseCode: '1' }
// a location that claims a warehouse without locations: Exact would refuse it
const stray: LocationRef = { ID: 'l9', Code: 'X', Warehouse: W4, WarehouseCode: '4' }

describe('places of the handheld pickers', () => {
  it('offers the storage locations, then the warehouses without them as a whole', () => {
    const places = placesOf([A1, stray], warehouses)
    expect(places.map((p) => p.ID)).toEqual(['l1', `warehouse:${W4}`, `warehouse:${W5}`])
    expect(places.map(locationOf)).toEqual(['l1', null, null])
    expect(places.map((p) => p.Warehouse)).toEqual([W1.toLowerCase(), W4, W5])
    expect(isWarehousePlace(places[1].ID)).toBe(true)
    expect(locationLabel(places[1])).toBe('4 (Werkplaats) · no storage locations')
    expect(unlocatedIds(warehouses)).toEqual(new Set([W4, W5]))
    // without the warehouses read, only the locations
    expect(placesOf([A1], undefined)).toEqual([A1])
    // the locations by code, numbers in order
    const B10: LocationRef = { ID: 'l10', Code: 'B10', Warehouse: W1, WarehouseCode: '1' }
    const B9: LocationRef = { ID: 'l11', Code: 'B9', Warehouse: W1, WarehouseCode: '1' }
    expect(placesOf([B10, A1, B9], undefined).map((p) => p.Code)).toEqual(['A01-01', 'B9', 'B10'])
  })

  it('moves from locations with stock and from whole warehouses whose position holds some', () => {
    const places = placesOf([A1], warehouses)
    const positions = [
      { Warehouse: W5.toUpperCase(), CurrentStock: 3 },
      { Warehouse: W4, CurrentStock: 0 },
    ]
    expect(sourcesOf(places, new Set(['l1']), positions).map((p) => p.ID)).toEqual(['l1', `warehouse:${W5}`])
    expect(sourcesOf(places, new Set(), undefined)).toEqual([])
  })
})

describe('places an issue to a shop order comes from', () => {
  const D1: LocationRef = { ID: 'd1', Code: 'D01-03', Warehouse: 'bbbbbbbb-0000-4000-8000-000000000002', WarehouseCode: '2' }
  const unknown: LocationRef = { ID: 'u', Code: 'U' }
  it("keeps the order's warehouse (any spelling) and places of unknown warehouse", () => {
    expect(placesInWarehouse([D1, A1, unknown], W1).map((p) => p.ID)).toEqual(['l1', 'u'])
  })
  it('keeps every place while no order is chosen', () => {
    expect(placesInWarehouse([D1, A1], null).map((p) => p.ID)).toEqual(['d1', 'l1'])
  })
})
