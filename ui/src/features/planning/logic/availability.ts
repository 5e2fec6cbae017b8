// Material availability of shop orders (the Katana/MRPeasy reading): each order's open material
// lines draw on their item's free stock in the order of planned start, then on what is planned to
// come in. An order is as available as its worst line.
//
// It works on the server's answer as it comes (`/planning/materials`: the lines in columns, items
// by their place), with the stock in typed arrays: at scale large (21,000 orders, 118,000 lines)
// a line object and a string key per line cost the chart a quarter of a second.

export type Availability = 'inStock' | 'expected' | 'notAvailable' | 'none'

/**
 * What the dots are worked out from, as the server's answer has it: the lines in columns, each
 * open order's lines one after the other (found by the order's id in lower case), and each
 * item's free stock and planned receipts at the item's place.
 */
export interface MaterialNeeds {
  orders: ReadonlyMap<string, { start: number; count: number }>
  /** Each line's line number, its item's place, and what it still needs. */
  line: ArrayLike<number>
  item: ArrayLike<number>
  quantity: ArrayLike<number>
  free: ArrayLike<number>
  incoming: ArrayLike<number>
}

export interface OrderRef {
  /** The order's id in lower case, as the needs name it. */
  ID: string
  startDay: number
}

export interface Allocation {
  orders: Map<string, Availability>
  /** A line's state by its order (lower case) and line number; two lines sharing a number show the worse. */
  line: (order: string, lineNumber: number) => Availability | undefined
}

const RANK: Record<Availability, number> = { none: 0, inStock: 1, expected: 2, notAvailable: 3 }
const BY_RANK: Availability[] = ['none', 'inStock', 'expected', 'notAvailable']

/**
 * Availability per shop order and per material line. Orders starting earlier are served first;
 * a line covered by free stock is in stock, by free stock plus planned receipts expected,
 * otherwise not available.
 */
export function availability(orders: readonly OrderRef[], needs: MaterialNeeds): Allocation {
  const free = Float64Array.from(needs.free, (v) => Number(v) || 0)
  const incoming = Float64Array.from(needs.incoming, (v) => Number(v) || 0)
  const sorted = [...orders].sort((a, b) => a.startDay - b.startDay || (a.ID < b.ID ? -1 : 1))
  const result = new Map<string, Availability>()
  // each line's state (its rank), at the line's place in the columns; 0 until served
  const ranks = new Uint8Array(needs.line.length)
  for (const o of sorted) {
    const at = needs.orders.get(o.ID)
    let state = 0
    for (let i = at?.start ?? 0, end = at ? at.start + at.count : 0; i < end; i++) {
      const item = needs.item[i]
      const need = needs.quantity[i]
      if (!(need > 0)) continue
      let rank: number
      if (free[item] >= need) {
        free[item] -= need
        rank = RANK.inStock
      } else if (free[item] + incoming[item] >= need) {
        incoming[item] -= need - Math.max(free[item], 0)
        free[item] = 0
        rank = RANK.expected
      } else {
        incoming[item] = 0
        free[item] = 0
        rank = RANK.notAvailable
      }
      ranks[i] = rank
      if (rank > state) state = rank
    }
    result.set(o.ID, BY_RANK[state])
  }
  const line = (order: string, lineNumber: number): Availability | undefined => {
    const at = needs.orders.get(order)
    if (!at) return undefined
    let rank = 0
    for (let i = at.start; i < at.start + at.count; i++) if (needs.line[i] === lineNumber && ranks[i] > rank) rank = ranks[i]
    return rank > 0 ? BY_RANK[rank] : undefined
  }
  return { orders: result, line }
}
