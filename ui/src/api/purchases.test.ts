import { afterEach, describe, expect, it, vi } from 'vitest'
import { json } from '../test/fixtures.ts'
import { fetchOpenPurchaseLines } from './purchases.ts'

afterEach(() => vi.unstubAllGlobals())

const order = {
  PurchaseOrderID: 'po-1',
  OrderNumber: 40080,
  ReceiptStatus: 20,
  Supplier: 'S-1',
  SupplierCode: '100',
  SupplierName: 'Staal BV',
  ReceiptDate: '/Date(1796083200000)/',
}

describe('open purchase lines from the local copy', () => {
  it("asks the open orders' rows once and joins each line to its order's row", async () => {
    const asked: URL[] = []
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        asked.push(new URL(url, 'http://esm.test'))
        return json([
          { ...order, ID: 'po-1', LineNumber: 0 },
          { ...order, ID: 'l-1', LineNumber: 1, Item: 'I-1', ItemCode: 'RM-1', Quantity: 10, ReceivedQuantity: 4, Unit: 'kg' },
          // received in full: nothing to come
          { ...order, ID: 'l-2', LineNumber: 2, Item: 'I-2', ItemCode: 'RM-2', Quantity: 5, ReceivedQuantity: 5, Unit: 'pc' },
        ])
      }),
    )
    const { rows, asOf } = await fetchOpenPurchaseLines()
    expect(asked).toHaveLength(1)
    expect(asked[0].pathname).toBe('/api/v1/db/purchaseOrders')
    expect(asked[0].searchParams.get('ReceiptStatus')).toBe('in.(10,20)')
    expect(asked[0].searchParams.get('select')?.split(',')).toEqual(expect.arrayContaining(['LineNumber', 'SupplierName', 'ReceivedQuantity']))
    expect(rows.map((l) => [l.id, l.orderNumber, l.supplierName, l.quantity - l.received, l.lineNumber])).toEqual([['l-1', '40080', 'Staal BV', 6, 1]])
    expect(asOf).toBeNull()
  })
})
