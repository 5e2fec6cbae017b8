import { afterEach, describe, expect, it, vi } from 'vitest'
import { json } from '../test/fixtures.ts'
import { fetchOpenPurchaseLines } from './purchases.ts'

afterEach(() => vi.unstubAllGlobals())

const line = {
  id: 'l-1',
  orderId: 'po-1',
  orderNumber: '40080',
  lineNumber: 1,
  item: 'i-1',
  itemCode: 'RM-1',
  itemDescription: 'Steel',
  supplierId: 's-1',
  supplierCode: '100',
  supplierName: 'Staal BV',
  warehouse: 'w-1',
  warehouseCode: '1',
  project: '',
  projectCode: '',
  quantity: 10,
  received: 4,
  unit: 'kg',
}

describe('open purchase lines from the local copy', () => {
  it('asks the server once for the lines still to come, days absent as null', async () => {
    const asked: URL[] = []
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        asked.push(new URL(url, 'http://esm.test'))
        return json([line, { ...line, id: 'l-2', lineNumber: 2, day: '2026-12-08', orderDay: '2026-12-01' }])
      }),
    )
    const { rows, asOf } = await fetchOpenPurchaseLines()
    expect(asked.map((u) => u.pathname + u.search)).toEqual(['/api/v1/purchases/open'])
    expect(rows.map((l) => [l.id, l.orderNumber, l.supplierName, l.quantity - l.received, l.day, l.orderDay])).toEqual([
      ['l-1', '40080', 'Staal BV', 6, null, null],
      ['l-2', '40080', 'Staal BV', 6, '2026-12-08', '2026-12-01'],
    ])
    expect(asOf).toBeNull()
  })
})
