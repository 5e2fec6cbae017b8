import { describe, expect, it } from 'vitest'
import type { SyncEndpoint } from '../api/sync.ts'
import { memoryStorage } from '../test/fixtures.ts'
import { defaultSelection, loadSelection, orderEndpoints, saveSelection, toggleTable } from './endpointSelection.ts'

const ep = (table: string, sync: boolean, default_selected = sync): SyncEndpoint => ({
  table,
  name: table.toUpperCase(),
  sync,
  default_selected,
  selected: default_selected,
})

// the server's order mixes live and sync endpoints
const list = [ep('warehouses', false), ep('items', true), ep('deletedEntries', true, false), ep('employees', false), ep('shopOrders', true)]

describe('endpoint selection', () => {
  it('puts sync endpoints first, then the live ones', () => {
    expect(orderEndpoints(list).map((e) => e.table)).toEqual(['items', 'deletedEntries', 'shopOrders', 'warehouses', 'employees'])
  })

  it('defaults to what the server marks default (sync endpoints except deleted entries)', () => {
    expect(defaultSelection(list)).toEqual(['items', 'shopOrders'])
    expect(loadSelection(memoryStorage(), list)).toEqual(['items', 'shopOrders'])
  })

  it('is saved under selectedEndpoints and read back', () => {
    const storage = memoryStorage()
    saveSelection(storage, ['items', 'warehouses'])
    expect(storage.getItem('selectedEndpoints')).toBe('["items","warehouses"]')
    expect(loadSelection(storage, list)).toEqual(['items', 'warehouses'])
  })

  it('keeps an empty choice, drops tables the server no longer offers, ignores junk', () => {
    expect(loadSelection(memoryStorage({ selectedEndpoints: '[]' }), list)).toEqual([])
    expect(loadSelection(memoryStorage({ selectedEndpoints: '["items","gone"]' }), list)).toEqual(['items'])
    expect(loadSelection(memoryStorage({ selectedEndpoints: '{oops' }), list)).toEqual(['items', 'shopOrders'])
    expect(loadSelection(memoryStorage({ selectedEndpoints: '[1,2]' }), list)).toEqual(['items', 'shopOrders'])
  })

  it('toggles a table in and out, in menu order', () => {
    expect(toggleTable(['shopOrders'], 'items', list)).toEqual(['items', 'shopOrders'])
    expect(toggleTable(['items', 'shopOrders'], 'items', list)).toEqual(['shopOrders'])
    expect(toggleTable([], 'employees', list)).toEqual(['employees'])
  })
})
