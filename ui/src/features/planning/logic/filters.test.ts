import { describe, expect, it } from 'vitest'
import { activeFilterCount, filterOrders, NO_FILTERS } from './filters.ts'

const o = (n: number, extra: Record<string, string | null> = {}) => ({
  ShopOrderNumber: n,
  YourRef: `PO-${n}`,
  Warehouse: 'W1',
  SelectionCode: null,
  Project: null,
  Item: 'i1',
  ...extra,
})

describe('filterOrders', () => {
  const orders = [o(24001), o(24002, { Warehouse: 'W2', Project: 'P1' }), o(24103, { YourRef: 'Klant ABC', Item: 'I2', SelectionCode: 'S' })]
  it('searches shop order number and Your Ref', () => {
    expect(filterOrders(orders, { ...NO_FILTERS, search: '2400' }).map((x) => x.ShopOrderNumber)).toEqual([24001, 24002])
    expect(filterOrders(orders, { ...NO_FILTERS, search: ' abc ' }).map((x) => x.ShopOrderNumber)).toEqual([24103])
    expect(filterOrders(orders, { ...NO_FILTERS, search: 'SO 24002' }).map((x) => x.ShopOrderNumber)).toEqual([24002])
    expect(filterOrders(orders, { ...NO_FILTERS, search: 'so-24103' }).map((x) => x.ShopOrderNumber)).toEqual([24103])
  })
  it('combines warehouse, project, selection code and item group', () => {
    expect(filterOrders(orders, { ...NO_FILTERS, warehouse: 'w2' })).toHaveLength(1)
    expect(filterOrders(orders, { ...NO_FILTERS, warehouse: 'W1', selectionCode: 'S' })).toHaveLength(1)
    expect(filterOrders(orders, { ...NO_FILTERS, project: 'P1', warehouse: 'W1' })).toHaveLength(0)
    expect(filterOrders(orders, { ...NO_FILTERS, itemGroup: 'G' }, new Set(['i2'])).map((x) => x.ShopOrderNumber)).toEqual([24103])
    expect(activeFilterCount({ ...NO_FILTERS, search: ' ', project: 'P' })).toBe(1)
  })
})
