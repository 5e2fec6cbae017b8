// Material shortages: per item, demand (sales order lines, shop order materials) against free
// stock and expected supply (purchase order lines, shop orders that make the item), in date
// order, with a running projected balance. Pure. The Materials screen gets every item's projection
// from the server (`src/materials/`, the same rules); this one serves the item page.
//
// Line kinds (shown as two-letter badges, explained by a tooltip):
//   FI  free stock now (stock positions' FreeStock)            supply, no date, counted first
//   PO  purchase order line still to be received               supply on its receipt date
//   MA  shop order still to be made (planned minus produced)   supply on its planned date
//   MS  shop order material still to be issued                 demand on its planned date
//   SO  sales order line still to be delivered                 demand on its delivery date
import { providerDay } from './dateTime.ts'
import { naturalCompare } from './order.ts'

export type LineKind = 'FI' | 'PO' | 'MA' | 'MS' | 'SO'

export const LINE_KINDS: readonly LineKind[] = ['SO', 'PO', 'MS', 'MA', 'FI']

export interface FlowLine {
  kind: LineKind
  item: string
  /** Day as `YYYY-MM-DD` (the provider's date-only values are midnight UTC); null for FI. */
  day: string | null
  /** Positive: supply; negative: demand. */
  quantity: number
  /** Warehouse id, lower case; '' when unknown. */
  warehouse: string
  /** Project id, lower case; '' when none. */
  project: string
  /** Record the line belongs to (sales order, purchase order or shop order id) for links. */
  refId: string
  /** Order number shown to the user. */
  refNumber: string
  /** The sales order line itself (SO lines), whose delivery date can be moved. */
  lineId?: string
}

export interface BalanceLine extends FlowLine {
  /** Projected balance after this line. */
  balance: number
}

export type Availability = 'inStock' | 'expected' | 'short'

export interface ItemProjection {
  item: string
  lines: BalanceLine[]
  free: number
  demand: number
  supply: number
  /** Day of the first line after which the balance is below zero (null: never). */
  firstShortDay: string | null
  /** Balance right after that line (negative). */
  firstShortBalance: number
  /** Lowest balance reached. */
  lowest: number
  endBalance: number
  /** inStock: free stock alone covers the demand; expected: covered thanks to PO/MA; short: not covered. */
  availability: Availability
}

/** Order within one day: stock first, supply before demand (goods arrive before they are used). */
const RANK: Record<LineKind, number> = { FI: 0, PO: 1, MA: 2, MS: 3, SO: 4 }

export function compareLines(a: FlowLine, b: FlowLine): number {
  if (a.day !== b.day) {
    if (a.day === null) return -1
    if (b.day === null) return 1
    return a.day < b.day ? -1 : 1
  }
  return RANK[a.kind] - RANK[b.kind] || naturalCompare(a.refNumber, b.refNumber)
}

/** Quantities summed in floating point drift (0.1 + 0.2); keep six decimals. */
function tidy(n: number): number {
  return Math.round(n * 1e6) / 1e6
}

/** The running balance of one item's lines. */
export function projectItem(item: string, lines: readonly FlowLine[]): ItemProjection {
  const sorted = [...lines].sort(compareLines)
  let balance = 0
  let stockOnly = 0
  let free = 0
  let demand = 0
  let supply = 0
  let lowest = Infinity
  let lowestStockOnly = Infinity
  let firstShortDay: string | null = null
  let firstShortBalance = 0
  const out: BalanceLine[] = []
  for (const l of sorted) {
    balance = tidy(balance + l.quantity)
    if (l.kind === 'FI') free = tidy(free + l.quantity)
    else if (l.quantity < 0) demand = tidy(demand - l.quantity)
    else supply = tidy(supply + l.quantity)
    // the same sequence without expected supply tells "covered by stock" from "covered later"
    if (l.kind === 'FI' || l.quantity < 0) stockOnly = tidy(stockOnly + l.quantity)
    lowestStockOnly = Math.min(lowestStockOnly, stockOnly)
    lowest = Math.min(lowest, balance)
    if (balance < 0 && firstShortDay === null && l.kind !== 'FI') {
      firstShortDay = l.day
      firstShortBalance = balance
    }
    out.push({ ...l, balance })
  }
  if (lowest === Infinity) lowest = 0
  const availability: Availability = lowest < 0 ? 'short' : lowestStockOnly < 0 ? 'expected' : 'inStock'
  return { item, lines: out, free, demand, supply, firstShortDay, firstShortBalance, lowest, endBalance: balance, availability }
}

// ---- rows of the local copy and the provider into lines ----

type Row = Record<string, unknown>

export function str(v: unknown): string {
  return typeof v === 'string' ? v.trim() : v === null || v === undefined ? '' : String(v)
}

export function num(v: unknown): number {
  const n = typeof v === 'number' ? v : Number(v)
  return Number.isFinite(n) ? n : 0
}

const id = (v: unknown) => str(v).toLowerCase()

/** `/Date(ms)/` or ISO text as a `YYYY-MM-DD` day; null when absent. */
export const dayOf = (v: unknown): string | null => (typeof v === 'string' ? providerDay(v) : null)

/** Shop order statuses still to be produced: 10 Open, 20 In process. */
export const OPEN_SHOP_ORDER = [10, 20]
/**
 * Material plan statuses still to be issued. Exact Online's own codes are 10 Open, 20 On order,
 * 25 Partial (30 Finished); the spec's 12 Open is accepted too.
 */
export const OPEN_MATERIAL_PLAN = [10, 12, 20, 25]
/** Sales order line statuses not yet complete or cancelled: 12 Open, 20 Partial. */
export const OPEN_SALES_LINE = [12, 20]
/** Material plan type of materials (2 is a by-product, received rather than used). */
export const MATERIAL_TYPE = 1

export interface ShopOrderInfo {
  number: string
  warehouse: string
  project: string
}

/** Open shop orders by id (lower case), for the material plans' warehouse and project. */
export function shopOrderIndex(rows: readonly Row[]): Map<string, ShopOrderInfo> {
  const out = new Map<string, ShopOrderInfo>()
  for (const r of rows) {
    out.set(id(r.ID), { number: str(r.ShopOrderNumber), warehouse: id(r.Warehouse), project: id(r.Project) })
  }
  return out
}

/** MS lines: what open material plans still need; `issued` holds issued quantities by plan id. */
export function materialLines(plans: readonly Row[], shopOrders: ReadonlyMap<string, ShopOrderInfo>, issued: ReadonlyMap<string, number>): FlowLine[] {
  const out: FlowLine[] = []
  for (const r of plans) {
    if (num(r.Type || MATERIAL_TYPE) !== MATERIAL_TYPE) continue
    if (!OPEN_MATERIAL_PLAN.includes(num(r.Status))) continue
    const so = shopOrders.get(id(r.ShopOrder))
    // a plan of a finished or unknown shop order needs nothing any more
    if (!so) continue
    const left = tidy(num(r.PlannedQuantity) - (issued.get(id(r.ID)) ?? 0))
    if (left <= 0) continue
    out.push({
      kind: 'MS',
      item: id(r.Item),
      day: dayOf(r.PlannedDate),
      quantity: -left,
      warehouse: so.warehouse,
      project: so.project,
      refId: id(r.ShopOrder),
      refNumber: so.number,
    })
  }
  return out
}

/** MA lines: open shop orders' quantity still to be produced. */
export function madeLines(shopOrders: readonly Row[]): FlowLine[] {
  const out: FlowLine[] = []
  for (const r of shopOrders) {
    if (!OPEN_SHOP_ORDER.includes(num(r.Status))) continue
    const left = tidy(num(r.PlannedQuantity) - num(r.ProducedQuantity))
    if (left <= 0) continue
    out.push({
      kind: 'MA',
      item: id(r.Item),
      day: dayOf(r.PlannedDate),
      quantity: left,
      warehouse: id(r.Warehouse),
      project: id(r.Project),
      refId: id(r.ID),
      refNumber: str(r.ShopOrderNumber),
    })
  }
  return out
}

/** SO lines: open sales order lines' quantity still to be delivered; the warehouse is the header's. */
export function salesLines(lines: readonly Row[], headerWarehouse: ReadonlyMap<string, string>): FlowLine[] {
  const out: FlowLine[] = []
  for (const r of lines) {
    if (r.Status !== undefined && r.Status !== null && !OPEN_SALES_LINE.includes(num(r.Status))) continue
    const left = tidy(num(r.Quantity) - num(r.QuantityDelivered))
    if (left <= 0) continue
    out.push({
      kind: 'SO',
      item: id(r.Item),
      day: dayOf(r.DeliveryDate),
      quantity: -left,
      warehouse: headerWarehouse.get(id(r.OrderID)) ?? '',
      project: id(r.Project),
      refId: id(r.OrderID),
      refNumber: str(r.OrderNumber),
      lineId: id(r.ID),
    })
  }
  return out
}

/** FI lines: free stock per item and warehouse. */
export function stockLines(positions: readonly Row[]): FlowLine[] {
  const out: FlowLine[] = []
  for (const r of positions) {
    const free = num(r.FreeStock ?? r.CurrentStock)
    if (free === 0) continue
    out.push({
      kind: 'FI',
      item: id(r.ItemId),
      day: null,
      quantity: free,
      warehouse: id(r.Warehouse),
      project: '',
      refId: '',
      refNumber: str(r.WarehouseCode),
    })
  }
  return out
}
