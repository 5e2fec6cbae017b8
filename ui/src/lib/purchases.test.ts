import { describe, expect, it } from 'vitest'
import { daysLate, filterLines, groupLines, isLate, suppliersOf, toPurchaseLines } from './purchases.ts'

const ms = (day: string) => `/Date(${Date.parse(day + 'T00:00:00Z')})/`

const headers = [
  {
    PurchaseOrderID: 'A',
    OrderNumber: 40001,
    OrderDate: ms('2026-01-01'),
    ReceiptDate: ms('2026-01-20'),
    Supplier: 'S1',
    SupplierCode: '100',
    SupplierName: 'Bolt BV',
    Warehouse: 'W',
    WarehouseCode: '1',
    ReceiptStatus: 20,
  },
  {
    PurchaseOrderID: 'B',
    OrderNumber: 40002,
    OrderDate: ms('2026-01-05'),
    ReceiptDate: ms('2026-02-10'),
    Supplier: 'S2',
    SupplierCode: '200',
    SupplierName: 'Anker NV',
    Warehouse: 'W',
    WarehouseCode: '1',
    ReceiptStatus: 10,
  },
  {
    PurchaseOrderID: 'C',
    OrderNumber: 40003,
    OrderDate: ms('2026-01-05'),
    ReceiptDate: ms('2026-02-10'),
    Supplier: 'S2',
    SupplierCode: '200',
    SupplierName: 'Anker NV',
    Warehouse: 'W',
    WarehouseCode: '1',
    ReceiptStatus: 30,
  },
]
const lines = [
  { ID: 'L1', PurchaseOrderID: 'A', LineNumber: 1, Item: 'I1', ItemCode: 'P-1', ItemDescription: 'Bolt', Quantity: 10, ReceivedQuantity: 10, Unit: 'pc' },
  { ID: 'L2', PurchaseOrderID: 'A', LineNumber: 2, Item: 'I2', ItemCode: 'P-2', ItemDescription: 'Nut', Quantity: 10, ReceivedQuantity: 5, Unit: 'pc' },
  {
    ID: 'L3',
    PurchaseOrderID: 'B',
    LineNumber: 1,
    Item: 'I1',
    ItemCode: 'P-1',
    ItemDescription: 'Bolt',
    Quantity: 4,
    ReceivedQuantity: 0,
    ReceiptDate: ms('2026-02-15'),
    Project: 'PR',
    ProjectCode: 'PRJ',
  },
  { ID: 'L4', PurchaseOrderID: 'C', LineNumber: 1, Item: 'I1', ItemCode: 'P-1', ItemDescription: 'Bolt', Quantity: 4, ReceivedQuantity: 0 },
  { ID: 'L5', PurchaseOrderID: 'X', LineNumber: 1, Item: 'I1', ItemCode: 'P-1', ItemDescription: 'Bolt', Quantity: 4, ReceivedQuantity: 0 },
]

describe('open purchase lines', () => {
  const open = toPurchaseLines(headers, lines)

  it('keeps lines of open orders with goods still to come, with the order supplier', () => {
    expect(open.map((l) => [l.id, l.orderNumber, l.supplierName, l.day, l.quantity, l.received])).toEqual([
      ['l2', '40001', 'Bolt BV', '2026-01-20', 10, 5],
      ['l3', '40002', 'Anker NV', '2026-02-15', 4, 0],
    ])
    expect(open[1].projectCode).toBe('PRJ')
  })

  it('marks lines expected before today as late', () => {
    expect(open.map((l) => isLate(l, '2026-02-15'))).toEqual([true, false])
    expect(daysLate(open[0], '2026-02-15')).toBe(26)
    expect(daysLate(open[1], '2026-02-15')).toBe(0)
  })

  it('filters by supplier, text and lateness', () => {
    const none = { supplier: '', search: '', lateOnly: false }
    expect(filterLines(open, { ...none, supplier: 'S2' }, '2026-02-15').map((l) => l.id)).toEqual(['l3'])
    expect(filterLines(open, { ...none, search: 'nut' }, '2026-02-15').map((l) => l.id)).toEqual(['l2'])
    expect(filterLines(open, { ...none, search: '40002' }, '2026-02-15').map((l) => l.id)).toEqual(['l3'])
    expect(filterLines(open, { ...none, lateOnly: true }, '2026-02-15').map((l) => l.id)).toEqual(['l2'])
  })

  it('groups by supplier, item or day', () => {
    expect(groupLines(open, 'supplier', '2026-02-15').map((g) => [g.name, g.lines.length, g.late])).toEqual([
      ['Anker NV', 1, 0],
      ['Bolt BV', 1, 1],
    ])
    // by item description: Bolt, then Nut
    expect(groupLines(open, 'item', '2026-02-15').map((g) => g.code)).toEqual(['P-1', 'P-2'])
    expect(groupLines(open, 'date', '2026-02-15').map((g) => g.key)).toEqual(['2026-01-20', '2026-02-15'])
    expect(suppliersOf(open).map((s) => s.code)).toEqual(['200', '100'])
  })
})
