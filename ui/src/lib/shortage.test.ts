import { describe, expect, it } from 'vitest'
import { dayOf, madeLines, materialLines, projectItem, salesLines, shopOrderIndex, stockLines, type FlowLine } from './shortage.ts'

const line = (kind: FlowLine['kind'], day: string | null, quantity: number, more: Partial<FlowLine> = {}): FlowLine => ({
  kind,
  item: 'a',
  day,
  quantity,
  warehouse: 'w1',
  project: '',
  refId: '',
  refNumber: '',
  ...more,
})

const ms = (day: string) => `/Date(${Date.parse(day + 'T00:00:00Z')})/`

describe('projectItem', () => {
  it('runs the balance in date order and finds the first short day', () => {
    const p = projectItem('a', [line('SO', '2026-03-10', -4), line('FI', null, 5), line('MS', '2026-03-05', -3), line('PO', '2026-03-20', 10)])
    expect(p.lines.map((l) => [l.kind, l.balance])).toEqual([
      ['FI', 5],
      ['MS', 2],
      ['SO', -2],
      ['PO', 8],
    ])
    expect(p.firstShortDay).toBe('2026-03-10')
    expect(p.firstShortBalance).toBe(-2)
    expect(p.lowest).toBe(-2)
    expect(p.endBalance).toBe(8)
    expect(p.availability).toBe('short')
    expect([p.free, p.demand, p.supply]).toEqual([5, 7, 10])
  })

  it('counts supply before demand on the same day', () => {
    const p = projectItem('a', [line('MS', '2026-03-05', -3), line('PO', '2026-03-05', 3)])
    expect(p.lines.map((l) => l.kind)).toEqual(['PO', 'MS'])
    expect(p.availability).toBe('expected')
    expect(p.firstShortDay).toBeNull()
  })

  it('tells stock-covered from covered by expected supply', () => {
    expect(projectItem('a', [line('FI', null, 3), line('SO', '2026-01-01', -3)]).availability).toBe('inStock')
    expect(projectItem('a', [line('MA', '2026-01-01', 2), line('SO', '2026-01-02', -2)]).availability).toBe('expected')
    expect(projectItem('a', [line('SO', '2026-01-02', -2), line('MA', '2026-01-03', 2)]).availability).toBe('short')
  })

  it('keeps sums free of floating point drift', () => {
    const p = projectItem('a', [line('FI', null, 0.1), line('FI', null, 0.2), line('MS', '2026-01-01', -0.3)])
    expect(p.endBalance).toBe(0)
    expect(p.availability).toBe('inStock')
  })
})

describe('rows into lines', () => {
  const shopOrders = [
    {
      ID: 'SO-1',
      ShopOrderNumber: 24001,
      Status: 10,
      Item: 'MADE',
      PlannedQuantity: 5,
      ProducedQuantity: 0,
      PlannedDate: ms('2026-03-01'),
      Warehouse: 'W',
      Project: 'P',
    },
    { ID: 'SO-2', ShopOrderNumber: 24002, Status: 20, Item: 'MADE', PlannedQuantity: 5, ProducedQuantity: 5, PlannedDate: ms('2026-03-02'), Warehouse: 'W' },
    { ID: 'SO-3', ShopOrderNumber: 24003, Status: 30, Item: 'MADE', PlannedQuantity: 5, ProducedQuantity: 0, PlannedDate: ms('2026-03-02'), Warehouse: 'W' },
  ]

  it('reads dates as UTC days', () => {
    expect(dayOf(ms('2026-03-01'))).toBe('2026-03-01')
    expect(dayOf('2026-03-01T00:00:00Z')).toBe('2026-03-01')
    expect(dayOf(null)).toBeNull()
    expect(dayOf('nonsense')).toBeNull()
  })

  it('MA: open shop orders with quantity left to produce', () => {
    expect(madeLines(shopOrders)).toEqual([
      { kind: 'MA', item: 'made', day: '2026-03-01', quantity: 5, warehouse: 'w', project: 'p', refId: 'so-1', refNumber: '24001' },
    ])
  })

  it('MS: open material plans minus what was issued, of open shop orders, materials only', () => {
    const index = shopOrderIndex(shopOrders.filter((s) => s.Status < 30))
    const plans = [
      { ID: 'M1', ShopOrder: 'SO-1', Item: 'PART', PlannedQuantity: 8, PlannedDate: ms('2026-02-27'), Status: 10, Type: 1 },
      { ID: 'M2', ShopOrder: 'SO-2', Item: 'PART', PlannedQuantity: 8, PlannedDate: ms('2026-02-28'), Status: 25, Type: 1 },
      { ID: 'M3', ShopOrder: 'SO-1', Item: 'PART', PlannedQuantity: 8, PlannedDate: ms('2026-02-28'), Status: 30, Type: 1 },
      { ID: 'M4', ShopOrder: 'SO-1', Item: 'BY', PlannedQuantity: 1, PlannedDate: ms('2026-02-28'), Status: 10, Type: 2 },
      { ID: 'M5', ShopOrder: 'SO-3', Item: 'PART', PlannedQuantity: 8, PlannedDate: ms('2026-02-28'), Status: 10, Type: 1 },
      { ID: 'M6', ShopOrder: 'SO-2', Item: 'PART', PlannedQuantity: 2, PlannedDate: ms('2026-02-28'), Status: 25, Type: 1 },
    ]
    const out = materialLines(
      plans,
      index,
      new Map([
        ['m2', 3],
        ['m6', 2],
      ]),
    )
    expect(out.map((l) => [l.refNumber, l.quantity, l.day, l.warehouse, l.project])).toEqual([
      ['24001', -8, '2026-02-27', 'w', 'p'],
      ['24002', -5, '2026-02-28', 'w', ''],
    ])
  })

  it('SO: quantity left to deliver of open lines, in the header warehouse', () => {
    const rows = [
      {
        ID: 'L1',
        OrderID: 'H1',
        OrderNumber: 30001,
        Item: 'MADE',
        Quantity: 4,
        QuantityDelivered: 1,
        DeliveryDate: ms('2026-03-05'),
        Status: 12,
        Project: 'P',
      },
      { OrderID: 'H1', OrderNumber: 30001, Item: 'MADE', Quantity: 4, QuantityDelivered: 4, DeliveryDate: ms('2026-03-05'), Status: 20 },
      { OrderID: 'H2', OrderNumber: 30002, Item: 'MADE', Quantity: 4, QuantityDelivered: 0, DeliveryDate: ms('2026-03-05'), Status: 45 },
    ]
    expect(salesLines(rows, new Map([['h1', 'w']]))).toEqual([
      { kind: 'SO', item: 'made', day: '2026-03-05', quantity: -3, warehouse: 'w', project: 'p', refId: 'h1', refNumber: '30001', lineId: 'l1' },
    ])
  })

  it('FI', () => {
    const fi = stockLines([
      { ItemId: 'PART', Warehouse: 'W', WarehouseCode: '1', FreeStock: 7, CurrentStock: 9 },
      { ItemId: 'PART', Warehouse: 'W2', WarehouseCode: '2', FreeStock: 0 },
    ])
    expect(fi).toEqual([{ kind: 'FI', item: 'part', day: null, quantity: 7, warehouse: 'w', project: '', refId: '', refNumber: '1' }])
  })
})
