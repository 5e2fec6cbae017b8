import { describe, expect, it } from 'vitest'
import { daysLate, filterLines, groupLines, isLate, suppliersOf, type PurchaseLine } from './purchases.ts'

/** Two open lines as the server gives them (`/purchases/open`): joined to their orders. */
const base: PurchaseLine = {
  id: 'l2',
  orderId: 'a',
  orderNumber: '40001',
  lineNumber: 2,
  orderDay: '2026-01-01',
  item: 'i2',
  itemCode: 'P-2',
  itemDescription: 'Nut',
  supplierId: 's1',
  supplierCode: '100',
  supplierName: 'Bolt BV',
  warehouse: 'w',
  warehouseCode: '1',
  project: '',
  projectCode: '',
  day: '2026-01-20',
  quantity: 10,
  received: 5,
  unit: 'pc',
}
const open: PurchaseLine[] = [
  base,
  {
    ...base,
    id: 'l3',
    orderId: 'b',
    orderNumber: '40002',
    lineNumber: 1,
    orderDay: '2026-01-05',
    item: 'i1',
    itemCode: 'P-1',
    itemDescription: 'Bolt',
    supplierId: 's2',
    supplierCode: '200',
    supplierName: 'Anker NV',
    project: 'pr',
    projectCode: 'PRJ',
    day: '2026-02-15',
    quantity: 4,
    received: 0,
  },
]

describe('open purchase lines', () => {
  it('marks lines expected before today as late', () => {
    expect(open.map((l) => isLate(l, '2026-02-15'))).toEqual([true, false])
    expect(daysLate(open[0], '2026-02-15')).toBe(26)
    expect(daysLate(open[1], '2026-02-15')).toBe(0)
  })

  it('filters by supplier, text and lateness', () => {
    const none = { supplier: '', search: '', lateOnly: false }
    expect(filterLines(open, { ...none, supplier: 's2' }, '2026-02-15').map((l) => l.id)).toEqual(['l3'])
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
