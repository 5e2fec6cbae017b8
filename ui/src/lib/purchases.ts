// Open purchase order lines (joined to their order's supplier and warehouse by the server,
// `src/purchases.rs`): filtered, grouped, sorted and marked late. Pure.
import { daysBetween } from './dateTime.ts'
import { naturalCompare, textCompare } from './order.ts'

export interface PurchaseLine {
  id: string
  orderId: string
  orderNumber: string
  lineNumber: number
  orderDay: string | null
  item: string
  itemCode: string
  itemDescription: string
  supplierId: string
  supplierCode: string
  supplierName: string
  /** Warehouse id (lower case) and code. */
  warehouse: string
  warehouseCode: string
  /** Project id (lower case) and code. */
  project: string
  projectCode: string
  /** Expected receipt day `YYYY-MM-DD`. */
  day: string | null
  quantity: number
  received: number
  unit: string
}

/** Late: expected before today and still not (fully) received. */
export function isLate(line: PurchaseLine, today: string): boolean {
  return line.day !== null && line.day < today && line.received < line.quantity
}

export function daysLate(line: PurchaseLine, today: string): number {
  if (!isLate(line, today) || !line.day) return 0
  return daysBetween(line.day, today)
}

export type GroupBy = 'supplier' | 'item' | 'date'

export interface PurchaseGroup {
  key: string
  /** Code and name of the supplier or item, or the day. */
  code: string
  name: string
  lines: PurchaseLine[]
  late: number
}

export interface PurchaseFilters {
  /** Supplier id ('' = all). */
  supplier: string
  /** Matches item code or description, supplier code or name, or the order number. */
  search: string
  lateOnly: boolean
}

export function filterLines(lines: readonly PurchaseLine[], f: PurchaseFilters, today: string): PurchaseLine[] {
  const q = f.search.trim().toLowerCase()
  return lines.filter(
    (l) =>
      (!f.supplier || l.supplierId === f.supplier.toLowerCase()) &&
      (!f.lateOnly || isLate(l, today)) &&
      (!q || [l.itemCode, l.itemDescription, l.supplierCode, l.supplierName, l.orderNumber].some((v) => v.toLowerCase().includes(q))),
  )
}

function byDay(a: PurchaseLine, b: PurchaseLine): number {
  return textCompare(a.day ?? '9999', b.day ?? '9999') || naturalCompare(a.orderNumber, b.orderNumber) || a.lineNumber - b.lineNumber
}

/** Groups by supplier, item or expected day; within a group the earliest expected first. */
export function groupLines(lines: readonly PurchaseLine[], by: GroupBy, today: string): PurchaseGroup[] {
  const groups = new Map<string, PurchaseGroup>()
  for (const l of lines) {
    const [key, code, name] =
      by === 'supplier'
        ? [l.supplierId, l.supplierCode, l.supplierName]
        : by === 'item'
          ? [l.item, l.itemCode, l.itemDescription]
          : [l.day ?? '', l.day ?? '', '']
    let g = groups.get(key)
    if (!g) groups.set(key, (g = { key, code, name, lines: [], late: 0 }))
    g.lines.push(l)
    if (isLate(l, today)) g.late++
  }
  const out = [...groups.values()]
  for (const g of out) g.lines.sort(byDay)
  if (by === 'date') return out.sort((a, b) => textCompare(a.key || '9999', b.key || '9999'))
  return out.sort((a, b) => naturalCompare(a.name || a.code, b.name || b.code) || textCompare(a.code, b.code))
}

/** Suppliers of the lines, by name, for the filter. */
export function suppliersOf(lines: readonly PurchaseLine[]): { id: string; code: string; name: string }[] {
  const map = new Map<string, { id: string; code: string; name: string }>()
  for (const l of lines) if (!map.has(l.supplierId)) map.set(l.supplierId, { id: l.supplierId, code: l.supplierCode, name: l.supplierName })
  return [...map.values()].sort((a, b) => textCompare(a.name, b.name) || textCompare(a.code, b.code))
}
