import { describe, expect, it } from 'vitest'
import { groupLines, type PurchaseLine } from '../../lib/purchases.ts'
import { flatRows } from './PurchaseList.tsx'

const line = (id: string, supplier: string, day: string): PurchaseLine => ({
  id,
  orderId: `o-${id}`,
  orderNumber: id,
  lineNumber: 1,
  orderDay: null,
  item: 'i',
  itemCode: 'P-1',
  itemDescription: 'Bolt',
  supplierId: supplier,
  supplierCode: supplier,
  supplierName: supplier,
  warehouse: 'w',
  warehouseCode: '1',
  project: '',
  projectCode: '',
  day,
  quantity: 4,
  received: 0,
  unit: 'pc',
})

describe('the virtualised purchase list', () => {
  it('puts each group heading before its lines and marks the last line of a group', () => {
    const groups = groupLines([line('1', 'B', '2026-02-01'), line('2', 'A', '2026-02-03'), line('3', 'A', '2026-02-02')], 'supplier', '2026-01-01')
    expect(flatRows(groups).map((r) => (r.kind === 'group' ? `group ${r.group.key}` : `${r.line.id}${r.last ? ' last' : ''}`))).toEqual([
      'group A',
      '3',
      '2 last',
      'group B',
      '1 last',
    ])
  })

  it('has no rows without groups', () => {
    expect(flatRows([])).toEqual([])
  })
})
