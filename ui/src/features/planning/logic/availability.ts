// Material availability of shop orders (the Katana/MRPeasy reading): each order's open material
// plans draw on their item's free stock in the order of planned start, then on what is planned to
// come in. An order is as available as its worst line.

export type Availability = 'inStock' | 'expected' | 'notAvailable' | 'none'

export interface PlanLine {
  ShopOrder: string
  Item: string
  PlannedQuantity: number
  Type: number
  Status: number
}

export interface StockLine {
  Item: string
  FreeStock: number
  PlanningIn: number
}

export interface OrderRef {
  ID: string
  startDay: number
}

/** Material plan statuses whose material is no longer needed: complete, cancelled (spec §3), and the provider's finished 30. */
const DONE = new Set([21, 30, 45])
/** Plan type 1 is a material; type 2 is a by-product, which yields stock rather than using it. */
const MATERIAL = 1

export function needsMaterial(p: Pick<PlanLine, 'Type' | 'Status' | 'PlannedQuantity'>): boolean {
  return (p.Type ?? MATERIAL) === MATERIAL && !DONE.has(Number(p.Status)) && Number(p.PlannedQuantity) > 0
}

const RANK: Record<Availability, number> = { none: 0, inStock: 1, expected: 2, notAvailable: 3 }

export function worst(a: Availability, b: Availability): Availability {
  return RANK[a] >= RANK[b] ? a : b
}

/** Free stock and planned receipts per item, summed over warehouses. */
export function stockByItem(stock: readonly StockLine[]): Map<string, { free: number; incoming: number }> {
  const out = new Map<string, { free: number; incoming: number }>()
  for (const s of stock) {
    const cur = out.get(s.Item) ?? { free: 0, incoming: 0 }
    cur.free += Number(s.FreeStock) || 0
    cur.incoming += Number(s.PlanningIn) || 0
    out.set(s.Item, cur)
  }
  return out
}

/**
 * Availability per shop order and per material plan line. Orders starting earlier are served
 * first; a line covered by free stock is in stock, by free stock plus planned receipts expected,
 * otherwise not available.
 */
export function availability(
  orders: readonly OrderRef[],
  plans: readonly (PlanLine & { ID?: string })[],
  stock: readonly StockLine[],
): { orders: Map<string, Availability>; lines: Map<string, Availability> } {
  const pool = stockByItem(stock)
  const byOrder = new Map<string, (PlanLine & { ID?: string })[]>()
  for (const p of plans) {
    if (!needsMaterial(p)) continue
    const list = byOrder.get(p.ShopOrder)
    if (list) list.push(p)
    else byOrder.set(p.ShopOrder, [p])
  }
  const sorted = [...orders].sort((a, b) => a.startDay - b.startDay || (a.ID < b.ID ? -1 : 1))
  const result = new Map<string, Availability>()
  const lines = new Map<string, Availability>()
  for (const o of sorted) {
    let state: Availability = 'none'
    for (const p of byOrder.get(o.ID) ?? []) {
      const s = pool.get(p.Item) ?? { free: 0, incoming: 0 }
      const need = Number(p.PlannedQuantity)
      let line: Availability
      if (s.free >= need) {
        s.free -= need
        line = 'inStock'
      } else if (s.free + s.incoming >= need) {
        s.incoming -= need - Math.max(s.free, 0)
        s.free = 0
        line = 'expected'
      } else {
        s.incoming = 0
        s.free = 0
        line = 'notAvailable'
      }
      pool.set(p.Item, s)
      // two lines under one id (a line number used twice in an order) show the worse
      if (p.ID) lines.set(p.ID, worst(lines.get(p.ID) ?? 'none', line))
      state = worst(state, line)
    }
    result.set(o.ID, state)
  }
  return { orders: result, lines }
}
