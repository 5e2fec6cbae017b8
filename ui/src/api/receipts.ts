// The Receipts screen's reads and writes: goods receipts of the last 30 days and open purchase
// order lines (live from the provider), the shop orders that need an item (local copy). The
// handheld's receiving reads the same open lines, so this lives in api/.
import { chunks, dbGet, dbJoinsAll, inList, type Row } from './db.ts'
import { readDirect, readDirectByIds } from './exactDirect.ts'
import { oldestAsOf, type LiveRows } from './live.ts'
import { sendWrite } from './writes.ts'
import { dayLit, guidLit } from '../lib/odata.ts'
import { trackingOf, type Tracking } from '../lib/tracking.ts'
import {
  needsByItem,
  toOpenLines,
  toReceiptLines,
  toReceipts,
  windowStart,
  withUnits,
  type GoodsReceiptBody,
  type Need,
  type OpenLine,
  type Receipt,
  type ReceiptLine,
} from '../lib/receipts.ts'

const RECEIPT_FIELDS = 'ID,ReceiptNumber,ReceiptDate,SupplierCode,SupplierName,WarehouseCode'
const RECEIPT_LINE_FIELDS = 'ID,GoodsReceiptID,Item,ItemCode,ItemDescription,Description,QuantityReceived,PurchaseOrderNumber,LocationCode'
const ORDER_FIELDS = 'PurchaseOrderID,OrderNumber,SupplierCode,SupplierName,Warehouse,WarehouseCode'
const ORDER_LINE_FIELDS =
  'ID,PurchaseOrderID,Item,ItemCode,ItemDescription,Description,ItemBarcode,SupplierItemCode,Unit,UnitDescription,Quantity,QuantityInPurchaseUnits,ReceivedQuantity,ReceiptDate'

/**
 * The goods receipts of the last 30 days, without their lines: what the list and its count need
 * first (at scale large the lines are three calls in four of the screen's reads).
 */
export async function fetchReceiptHeaders(now: number = Date.now()): Promise<LiveRows<Receipt>> {
  const headers = await readDirect('purchaseorder/GoodsReceipts', {
    filter: `ReceiptDate ge ${dayLit(windowStart(now))}`,
    select: RECEIPT_FIELDS,
  })
  return { rows: toReceipts(headers.rows, []), asOf: headers.asOf }
}

/** The lines of these receipts (read live, 40 receipts a call), with the receipts they are of. */
export async function fetchReceiptLines(receiptIds: readonly string[]): Promise<LiveRows<ReceiptLine> & { receipts: readonly string[] }> {
  const lines = await readDirectByIds('purchaseorder/GoodsReceiptLines', 'GoodsReceiptID', receiptIds, { select: RECEIPT_LINE_FIELDS })
  return { rows: toReceiptLines(lines.rows), asOf: lines.asOf, receipts: receiptIds }
}

/** Lines of purchase orders not yet fully received (ReceiptStatus 30 is complete). */
export async function fetchOpenLines(): Promise<LiveRows<OpenLine>> {
  return openLinesOf(await readDirect('purchaseorder/PurchaseOrders', { filter: 'ReceiptStatus lt 30', select: ORDER_FIELDS }))
}

/** The open lines of one purchase order, named by its number ("PO 40080" scanned). */
export async function fetchOpenLinesOfOrder(orderNumber: number): Promise<LiveRows<OpenLine>> {
  return openLinesOf(
    await readDirect('purchaseorder/PurchaseOrders', { filter: `OrderNumber eq ${orderNumber} and ReceiptStatus lt 30`, select: ORDER_FIELDS }),
  )
}

/** The open purchase order lines of one item: what a handheld can receive of it. */
export async function fetchOpenLinesOfItem(itemId: string): Promise<LiveRows<OpenLine>> {
  const lines = await readDirect('purchaseorder/PurchaseOrderLines', { filter: `Item eq ${guidLit(itemId)}`, select: ORDER_LINE_FIELDS })
  const orderIds = [...new Set(lines.rows.map((l) => String(l.PurchaseOrderID)))]
  const orders = await readDirectByIds('purchaseorder/PurchaseOrders', 'PurchaseOrderID', orderIds, { select: ORDER_FIELDS }, 'ReceiptStatus lt 30')
  return withItems(toOpenLines(orders.rows, lines.rows), oldestAsOf(orders.asOf, lines.asOf))
}

/** The open lines of these purchase orders, read live, with their items' rules from the local copy. */
async function openLinesOf(orders: LiveRows<Row>): Promise<LiveRows<OpenLine>> {
  const lines = await readDirectByIds(
    'purchaseorder/PurchaseOrderLines',
    'PurchaseOrderID',
    orders.rows.map((o) => String(o.PurchaseOrderID)),
    {
      select: ORDER_LINE_FIELDS,
    },
  )
  return withItems(toOpenLines(orders.rows, lines.rows), oldestAsOf(orders.asOf, lines.asOf))
}

async function withItems(open: OpenLine[], asOf: number | null): Promise<LiveRows<OpenLine>> {
  const itemIds = [...new Set(open.map((l) => l.item).filter(Boolean))]
  const items = (
    await Promise.all(
      chunks(itemIds, 100).map((ids) =>
        dbGet('items', [
          ['ID', inList(ids)],
          ['select', 'ID,Barcode,IsFractionAllowedItem,IsSerialItem,IsBatchItem'],
          ['limit', '1000'],
        ]),
      ),
    )
  ).flat()
  return { rows: withUnits(open, items), asOf }
}

/**
 * Open material plans of open shop orders for these items. Material plans (Type 1) below 30
 * are not finished in the provider's codes (5 draft, 10 open, 20 on order, 25 partial).
 */
export async function fetchNeeds(itemIds: readonly string[]): Promise<Map<string, Need[]>> {
  const joins = [{ source: 'shopOrders', joinOn: ['ID'], joinOnSelf: ['ShopOrder'] }]
  const parts = await Promise.all(
    chunks([...new Set(itemIds)], 100).map((ids) =>
      // every line: an item many open orders need has more than a page of them
      dbJoinsAll('shopOrderMaterialPlans', joins, [
        ['Item', inList(ids)],
        ['Type', 'eq.1'],
        ['Status', 'lt.30'],
      ]),
    ),
  )
  const open = parts.flat().filter((p: Row) => p['shopOrders.ID'] && Number(p['shopOrders.Status']) < 30)
  return needsByItem(open)
}

/** How each item is tracked (by lower-case ID), from the local copy's Items. */
export async function fetchTracking(itemIds: readonly string[]): Promise<Map<string, Tracking>> {
  const rows = (
    await Promise.all(
      chunks([...new Set(itemIds)], 100).map((ids) =>
        dbGet('items', [
          ['ID', inList(ids)],
          ['select', 'ID,IsSerialItem,IsBatchItem'],
          ['limit', '1000'],
        ]),
      ),
    )
  ).flat()
  return new Map(rows.map((r) => [String(r.ID).toLowerCase(), trackingOf(r)]))
}

/** A goods receipt; made in a Wi-Fi dead spot it waits on the device, named by `summary`. */
export const createGoodsReceipt = (body: GoodsReceiptBody, summary: string) =>
  sendWrite('/exact/createGoodsReceipt', 'POST', body, { keep: { kind: 'goodsReceipt', summary } })
