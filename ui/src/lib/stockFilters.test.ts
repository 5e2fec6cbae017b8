import { describe, expect, it } from 'vitest'
import { NO_FILTERS } from '../api/stock.ts'
import { filtersFromParams, paramsWithFilters } from './stockFilters.ts'

describe('Dashboard filters in the address', () => {
  it('reads the defaults from an address without filters', () => {
    expect(filtersFromParams(new URLSearchParams('division=123456'))).toEqual(NO_FILTERS)
  })

  it('writes only what differs from the defaults and keeps the division', () => {
    const f = { search: 'SO 24005', warehouse: 'w-3', itemGroup: '', activity: 'all' as const, sort: '-description' as const }
    const next = paramsWithFilters(new URLSearchParams('division=123456'), f)
    expect(next.get('division')).toBe('123456')
    expect(next.get('q')).toBe('SO 24005')
    expect(next.get('warehouse')).toBe('w-3')
    expect(next.has('group')).toBe(false)
    expect(next.get('status')).toBe('all')
    expect(next.get('sort')).toBe('-description')
    // what was written reads back the same after a reload
    expect(filtersFromParams(new URLSearchParams(next.toString()))).toEqual(f)
  })

  it('drops a filter set back to its default', () => {
    const next = paramsWithFilters(new URLSearchParams('division=1&q=motor&status=inactive'), NO_FILTERS)
    expect(next.toString()).toBe('division=1')
  })

  it('ignores an unknown status or order', () => {
    expect(filtersFromParams(new URLSearchParams('status=deleted')).activity).toBe('active')
    expect(filtersFromParams(new URLSearchParams('sort=stock')).sort).toBe('code')
  })
})
