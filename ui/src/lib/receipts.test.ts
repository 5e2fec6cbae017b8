import { describe, expect, it } from 'vitest'
import {
  matchesLine,
  matchesReceipt,
  needsByItem,
  overDelivered,
  receiptBodies,
  receiveError,
  toOpenLines,
  toReceipts,
  windowStart,
  withUnits,
  type OpenLine,
} from './receipts.ts'

const PO = 'a03da7c9-91df-4457-8622-a607473de8b4'
const PO2 = 'b03da7c9-91df-4457-8622-a607473de8b4'

const orders = [
  { PurchaseOrderID: PO, OrderNumber: 12, SupplierCode: 'S1', SupplierName: 'De Jong', Warehouse: 'W1', WarehouseCode: '1' },
  { PurchaseOrderID: PO2, OrderNumber: 13, SupplierCode: 'S2', SupplierName: 'Bakker', Warehouse: 'W1', WarehouseCode: '1' },
]
const lines = [
  {
    ID: 'l1',
    PurchaseOrderID: PO,
    ItemCode: 'BOLT-10',
    ItemDescription: 'Bolt M10',
    ItemBarcode: '8712345678906',
    Quantity: 10,
    QuantityInPurchaseUnits: 10,
    ReceivedQuantity: 4,
  },
  { ID: 'l2', PurchaseOrderID: PO, ItemCode: 'NUT-10', ItemDescription: 'Nut M10', Quantity: 5, QuantityInPurchaseUnits: 5, ReceivedQuantity: 5 },
  { ID: 'l3', PurchaseOrderID: PO2.toUpperCase(), ItemCode: 'RING-8', ItemDescription: 'Ring 8 mm', Quantity: 3, ReceivedQuantity: 0 },
  { ID: 'l4', PurchaseOrderID: 'unknown', ItemCode: 'X', Quantity: 3, ReceivedQuantity: 0 },
]

describe('open purchase order lines', () => {
  const open = toOpenLines(orders, lines)
  it('keeps lines with something left to receive, of known orders', () => {
    expect(open.map((l) => [l.id, l.open, l.orderNumber])).toEqual([
      ['l1', 6, '12'],
      ['l3', 3, '13'],
    ])
    expect(open[0].supplier).toBe('S1 De Jong')
  })
  it('matches a scanned barcode, a code, or every typed word', () => {
    expect(matchesLine(open[0], '8712345678906')).toBe(true)
    expect(matchesLine(open[0], 'bolt-10')).toBe(true)
    expect(matchesLine(open[0], 'm10 jong')).toBe(true)
    expect(matchesLine(open[0], 'ring')).toBe(false)
    expect(matchesLine(open[1], '13')).toBe(true)
    expect(matchesLine(open[1], '')).toBe(true)
  })
  it('reads a scan as every scan box does: "PO 13" is that order, a GTIN in any length its item', () => {
    expect(matchesLine(open[1], 'PO 13')).toBe(true)
    expect(matchesLine(open[1], 'po-13\r')).toBe(true)
    expect(matchesLine(open[0], 'PO 13')).toBe(false)
    // the box's GTIN-14 of the line's EAN-13
    expect(matchesLine(open[0], '08712345678906')).toBe(true)
    expect(matchesLine(open[1], '08712345678906')).toBe(false)
  })
  it("takes an item's barcode from the local copy when the order line has none", () => {
    const mine = toOpenLines(orders, [{ ID: 'l5', PurchaseOrderID: PO2, Item: 'I-RING', ItemCode: 'RING-9', Quantity: 2, ReceivedQuantity: 0 }])
    expect(matchesLine(mine[0], '4006381333931')).toBe(false)
    const [ring] = withUnits(mine, [{ ID: 'i-ring', Barcode: '4006381333931' }])
    expect(matchesLine(ring, '4006381333931')).toBe(true)
    // the order line's own barcode stands
    expect(withUnits(open, [{ ID: open[0].item, Barcode: '1111111111116' }])[0].barcode).toBe('8712345678906')
  })
  it('refuses quantities that are not numbers, not positive, or fractions of pieces', () => {
    expect(receiveError('2,5')).toBeNull()
    expect(receiveError('6')).toBeNull()
    expect(receiveError('', true)).toBe('receipts.error.notNumber')
    expect(receiveError('two')).toBe('receipts.error.notNumber')
    expect(receiveError('0')).toBe('receipts.error.notPositive')
    expect(receiveError('12,5', false)).toBe('receipts.error.notWhole')
    expect(receiveError('12', false)).toBeNull()
  })
  it("takes each line's unit rule from its item in the local copy", () => {
    const mine = toOpenLines(orders, [
      { ...lines[0], Item: 'I-PIECE' },
      { ...lines[2], Item: 'i-metre' },
    ])
    const [piece, metre] = withUnits(mine, [
      { ID: 'i-piece', IsFractionAllowedItem: false },
      { ID: 'I-METRE', IsFractionAllowedItem: true },
    ])
    expect(piece.fractions).toBe(false)
    expect(metre.fractions).toBe(true)
    // an item the copy does not hold takes any quantity
    expect(withUnits(mine, [])[0].fractions).toBe(true)
  })
  it('takes more than is open as an over-delivery, not an error', () => {
    expect(receiveError('105')).toBeNull()
    expect(overDelivered('105', 99)).toBe(true)
    expect(overDelivered('99', 99)).toBe(false)
    expect(overDelivered('abc', 99)).toBe(false)
  })
  it('makes one receipt per purchase order, with the location only when chosen', () => {
    const [a, b] = open as [OpenLine, OpenLine]
    const bodies = receiptBodies([
      { line: a, quantity: 2, location: 'loc-1' },
      { line: b, quantity: 1, location: '' },
      { line: a, quantity: 1, location: '' },
    ])
    expect(bodies).toHaveLength(2)
    expect(bodies[0]).toEqual({
      orderNumber: '12',
      lines: 2,
      body: {
        GoodsReceiptLines: [
          { PurchaseOrderLineID: 'l1', QuantityReceived: 2, Location: 'loc-1' },
          { PurchaseOrderLineID: 'l1', QuantityReceived: 1 },
        ],
      },
    })
    expect(bodies[1].body).toEqual({ GoodsReceiptLines: [{ PurchaseOrderLineID: 'l3', QuantityReceived: 1 }] })
  })
})

describe('receipts', () => {
  it('reads 30 days back from the organization’s midnight', () => {
    expect(windowStart(Date.UTC(2026, 10, 21, 15, 30))).toBe('2026-10-22')
    // 23:30 UTC is already the 22nd in Amsterdam
    expect(windowStart(Date.UTC(2026, 10, 21, 23, 30))).toBe('2026-10-23')
  })
  it('puts lines under their receipt, newest first', () => {
    const headers = [
      { ID: 'R1', ReceiptNumber: 1, ReceiptDate: '/Date(1794096000000)/', SupplierCode: 'S1', SupplierName: 'De Jong', WarehouseCode: '1' },
      { ID: 'r2', ReceiptNumber: 2, ReceiptDate: '/Date(1794182400000)/', SupplierName: 'Bakker' },
    ]
    const rl = [
      { ID: 'a', GoodsReceiptID: 'r1', ItemCode: 'BOLT', QuantityReceived: 3, PurchaseOrderNumber: 12 },
      { ID: 'b', GoodsReceiptID: 'R2', ItemCode: 'NUT', Description: 'Nut', QuantityReceived: 1 },
    ]
    const r = toReceipts(headers, rl)
    expect(r.map((x) => x.number)).toEqual(['2', '1'])
    expect(r[1].lines.map((l) => [l.id, l.quantity, l.orderNumber])).toEqual([['a', 3, '12']])
    expect(r[0].lines[0].itemDescription).toBe('Nut')
    expect(r[0].supplier).toBe('Bakker')
  })
  it('finds receipts by "PO n" as scanned, or by every typed word in any order', () => {
    const [two, one] = toReceipts(
      [
        { ID: 'r1', ReceiptNumber: 1, SupplierName: 'De Jong', WarehouseCode: '1' },
        { ID: 'r2', ReceiptNumber: 2, SupplierName: 'Bakker' },
      ],
      [
        { ID: 'a', GoodsReceiptID: 'r1', ItemCode: 'BOLT', Description: 'Bolt M10', QuantityReceived: 3, PurchaseOrderNumber: 12 },
        { ID: 'b', GoodsReceiptID: 'r2', ItemCode: 'NUT', QuantityReceived: 1, PurchaseOrderNumber: 123 },
      ],
    )
    expect([one, two].map((r) => matchesReceipt(r, 'PO 12'))).toEqual([true, false])
    expect([one, two].map((r) => matchesReceipt(r, 'io-123\r'))).toEqual([false, true])
    expect(matchesReceipt(one, 'm10 jong')).toBe(true)
    expect(matchesReceipt(one, 'jong m10')).toBe(true)
    expect(matchesReceipt(one, 'jong nut')).toBe(false)
    expect(matchesReceipt(two, ' ')).toBe(true)
  })
})

describe('needsByItem', () => {
  it('groups open plans by item, earliest planned first', () => {
    const m = needsByItem([
      { Item: 'I1', ShopOrder: 's2', 'shopOrders.ShopOrderNumber': 502, PlannedQuantity: 4, PlannedDate: '/Date(1794182400000)/' },
      { Item: 'i1', ShopOrder: 's1', 'shopOrders.ShopOrderNumber': 501, PlannedQuantity: 2, PlannedDate: '/Date(1794096000000)/' },
      { Item: 'i2', ShopOrder: 's3', 'shopOrders.ShopOrderNumber': 503, PlannedQuantity: 1 },
    ])
    expect(m.get('i1')?.map((n) => n.shopOrderNumber)).toEqual(['501', '502'])
    expect(m.get('i2')?.[0].quantity).toBe(1)
  })
})
