// Goods receipts and open purchase order lines as the Receipts screen shows them, from the
// provider's rows (read live). Shared with the handheld's receiving, which books the same bodies.
import type { MessageKey } from '../i18n/index.ts'
import type { BodyOf } from '../api/contract.ts'
import type { Row } from '../api/db.ts'
import { addDays, orgToday, parseProviderDate } from './dateTime.ts'
import { exceeds, fitsUnit, fractionsAllowed, parseQuantity } from './quantity.ts'
import { classifyCode, sameBarcode } from './scan.ts'
import { trackingOf, type Tracking, type TrackedNumbers } from './tracking.ts'

/** The Receipts view reads this many days of goods receipts (spec §9). */
export const RECEIPT_DAYS = 30

export interface ReceiptLine {
  id: string
  receiptId: string
  item: string
  itemCode: string
  itemDescription: string
  quantity: number
  orderNumber: string
  location: string
}

export interface Receipt {
  id: string
  number: string
  date: number | null
  supplier: string
  warehouse: string
  lines: ReceiptLine[]
}

export interface OpenLine {
  id: string
  orderId: string
  orderNumber: string
  supplier: string
  warehouseId: string
  warehouse: string
  item: string
  itemCode: string
  itemDescription: string
  barcode: string
  supplierItemCode: string
  unit: string
  /** Whether Exact counts the item in fractions (false for pieces); see fractionsAllowed. */
  fractions: boolean
  /** How its item is tracked (serial or batch numbers on receipt), from the local copy's Items. */
  tracking: Tracking
  ordered: number
  received: number
  open: number
  due: number | null
}

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : v === null || v === undefined ? '' : String(v))
const num = (v: unknown) => {
  const n = typeof v === 'number' ? v : Number(v)
  return Number.isFinite(n) ? n : 0
}
const key = (v: unknown) => text(v).toLowerCase()

/** The first day of the receipts window: `RECEIPT_DAYS` days before the organization's today. */
export function windowStart(now: number = Date.now()): string {
  return addDays(orgToday(now), -RECEIPT_DAYS)
}

/** Receipts with their lines, newest first. */
/** A receipt's lines as the screen shows them. */
export function toReceiptLines(lines: readonly Row[]): ReceiptLine[] {
  return lines.map((l) => ({
    id: text(l.ID),
    receiptId: text(l.GoodsReceiptID),
    item: text(l.Item),
    itemCode: text(l.ItemCode),
    itemDescription: text(l.ItemDescription) || text(l.Description),
    quantity: num(l.QuantityReceived),
    orderNumber: text(l.PurchaseOrderNumber),
    location: text(l.LocationCode),
  }))
}

/** The lines of each receipt, by the receipt's id as `key` writes it. */
export function linesByReceipt(lines: readonly ReceiptLine[]): Map<string, ReceiptLine[]> {
  const out = new Map<string, ReceiptLine[]>()
  for (const l of lines) {
    const id = key(l.receiptId)
    const list = out.get(id)
    if (list) list.push(l)
    else out.set(id, [l])
  }
  return out
}

/** The id a receipt's lines are found under in `linesByReceipt`. */
export const receiptKey = (id: string) => key(id)

/** Receipts, newest first, with their lines (none given: an empty list each). */
export function toReceipts(headers: readonly Row[], lines: readonly Row[]): Receipt[] {
  const byReceipt = linesByReceipt(toReceiptLines(lines))
  return headers
    .map((h) => ({
      id: text(h.ID),
      number: text(h.ReceiptNumber),
      date: parseProviderDate(h.ReceiptDate),
      supplier: [text(h.SupplierCode), text(h.SupplierName)].filter(Boolean).join(' '),
      warehouse: text(h.WarehouseCode),
      lines: byReceipt.get(key(h.ID)) ?? [],
    }))
    .sort((a, b) => (b.date ?? 0) - (a.date ?? 0) || Number(b.number) - Number(a.number))
}

/** Purchase order lines with something still to receive, by order number and line. */
export function toOpenLines(orders: readonly Row[], lines: readonly Row[]): OpenLine[] {
  const byId = new Map(orders.map((o) => [key(o.PurchaseOrderID), o]))
  const out: OpenLine[] = []
  for (const l of lines) {
    const order = byId.get(key(l.PurchaseOrderID))
    if (!order) continue
    const ordered = num(l.QuantityInPurchaseUnits) || num(l.Quantity)
    const received = num(l.ReceivedQuantity)
    const open = Math.round((ordered - received) * 1e6) / 1e6
    if (open <= 0) continue
    out.push({
      id: text(l.ID),
      orderId: text(l.PurchaseOrderID),
      orderNumber: text(order.OrderNumber),
      supplier: [text(order.SupplierCode), text(order.SupplierName)].filter(Boolean).join(' '),
      warehouseId: text(order.Warehouse),
      warehouse: text(order.WarehouseCode),
      item: text(l.Item),
      itemCode: text(l.ItemCode),
      itemDescription: text(l.ItemDescription) || text(l.Description),
      barcode: text(l.ItemBarcode),
      supplierItemCode: text(l.SupplierItemCode),
      unit: text(l.UnitDescription) || text(l.Unit),
      fractions: true,
      tracking: 'none',
      ordered,
      received,
      open,
      due: parseProviderDate(l.ReceiptDate),
    })
  }
  return out.sort((a, b) => Number(a.orderNumber) - Number(b.orderNumber) || a.itemCode.localeCompare(b.itemCode))
}

/**
 * The lines with their items' unit rule (`IsFractionAllowedItem`) and tracking (`IsSerialItem`,
 * `IsBatchItem`) and barcode from the local copy's Items: a purchase line read live does not say whether its
 * unit takes decimals.
 */
export function withUnits(lines: readonly OpenLine[], items: readonly Row[]): OpenLine[] {
  const rows = new Map(items.map((i) => [key(i.ID), i]))
  return lines.map((l) => {
    const row = rows.get(key(l.item))
    // the item's own barcode where the order line carries none (an item given one after the order)
    return { ...l, barcode: l.barcode || text(row?.Barcode), fractions: fractionsAllowed(row?.IsFractionAllowedItem), tracking: trackingOf(row) }
  })
}

/**
 * Whether a line matches what was scanned or typed, read as every scan box reads it: "PO 40080"
 * is the order's lines; an exact barcode (in any of its GTIN forms), item code, supplier's code
 * or order number is that line; else every word somewhere in code, description, supplier or
 * order number.
 */
export function matchesLine(line: OpenLine, query: string): boolean {
  const code = classifyCode(query)
  if (code.kind === 'empty') return true
  if (code.kind === 'purchaseOrder') return line.orderNumber === String(code.number)
  const q = query.trim().toLowerCase()
  if (sameBarcode(line.barcode, q) || [line.itemCode, line.orderNumber, line.supplierItemCode].some((v) => v && v.toLowerCase() === q)) return true
  const hay = [line.itemCode, line.itemDescription, line.supplier, line.orderNumber, line.supplierItemCode, line.barcode].join(' ').toLowerCase()
  return q.split(/\s+/).every((w) => hay.includes(w))
}

/**
 * Whether a receipt matches the search, read as every scan box reads it: "PO 40080" is the
 * receipts of that order; else every word somewhere in its number, supplier, warehouse, or a
 * line's item or order number.
 */
export function matchesReceipt(r: Receipt, query: string): boolean {
  const code = classifyCode(query)
  if (code.kind === 'empty') return true
  if (code.kind === 'purchaseOrder') return r.lines.some((l) => l.orderNumber === String(code.number))
  const hay = [r.number, r.supplier, r.warehouse, ...r.lines.flatMap((l) => [l.itemCode, l.itemDescription, l.orderNumber])].join(' ').toLowerCase()
  return query
    .trim()
    .toLowerCase()
    .split(/\s+/)
    .every((w) => hay.includes(w))
}

/**
 * Why a typed quantity to receive cannot be sent, or null. More than is open is not refused:
 * suppliers over-deliver, and the desk records what came (see overDelivered).
 */
export function receiveError(typed: string, fractions = true): MessageKey | null {
  const n = parseQuantity(typed)
  if (n === null) return 'receipts.error.notNumber'
  if (n <= 0) return 'receipts.error.notPositive'
  if (!fitsUnit(n, fractions)) return 'receipts.error.notWhole'
  return null
}

/** Whether the typed quantity is more than the line still has open (received only after a confirmation). */
export function overDelivered(typed: string, open: number): boolean {
  const n = parseQuantity(typed)
  return n !== null && exceeds(n, open)
}

export interface Receiving {
  line: OpenLine
  quantity: number
  location: string
  /** A tracked item's serial or batch numbers for this line. */
  numbers?: TrackedNumbers
}

export type GoodsReceiptBody = BodyOf<'/exact/createGoodsReceipt', 'post'>

/** One goods receipt body per purchase order (the provider receives per order and warehouse). */
export function receiptBodies(list: readonly Receiving[]): { orderNumber: string; lines: number; body: GoodsReceiptBody }[] {
  const byOrder = new Map<string, Receiving[]>()
  for (const r of list) byOrder.set(r.line.orderId, [...(byOrder.get(r.line.orderId) ?? []), r])
  return [...byOrder.values()].map((rs) => ({
    orderNumber: rs[0].line.orderNumber,
    lines: rs.length,
    body: {
      GoodsReceiptLines: rs.map((r) => ({
        PurchaseOrderLineID: r.line.id,
        QuantityReceived: r.quantity,
        ...(r.location ? { Location: r.location } : {}),
        ...r.numbers,
      })),
    },
  }))
}

export interface Need {
  shopOrderId: string
  shopOrderNumber: string
  quantity: number
  plannedDate: number | null
}

/** Open shop order material plans (joined to their shop order) grouped by item, earliest first. */
export function needsByItem(plans: readonly Row[]): Map<string, Need[]> {
  const out = new Map<string, Need[]>()
  for (const p of plans) {
    const item = key(p.Item)
    const list = out.get(item) ?? []
    list.push({
      shopOrderId: text(p.ShopOrder),
      shopOrderNumber: text(p['shopOrders.ShopOrderNumber']),
      quantity: num(p.PlannedQuantity),
      plannedDate: parseProviderDate(p.PlannedDate),
    })
    out.set(item, list)
  }
  for (const list of out.values()) list.sort((a, b) => (a.plannedDate ?? Infinity) - (b.plannedDate ?? Infinity))
  return out
}
