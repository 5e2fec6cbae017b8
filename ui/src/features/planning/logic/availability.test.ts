import { describe, expect, it } from 'vitest'
import { availability, type MaterialNeeds } from './availability.ts'

/** Needs as the server's answer has them, from lines written out by order, item code and quantity. */
function needs(lines: [order: string, item: string, quantity: number, lineNumber?: number][], stock: Record<string, [number, number]> = {}): MaterialNeeds {
  const items: string[] = []
  const at = new Map<string, number>()
  const place = (item: string) => at.get(item) ?? (at.set(item, items.length), items.push(item) - 1)
  const byOrder = new Map<string, [string, number, number, number][]>()
  lines.forEach(([order, item, quantity, line], i) => {
    const list = byOrder.get(order) ?? []
    list.push([order, line ?? (i + 1) * 10, place(item), quantity])
    byOrder.set(order, list)
  })
  const n = { orders: new Map<string, { start: number; count: number }>(), line: [] as number[], item: [] as number[], quantity: [] as number[] }
  for (const [order, list] of byOrder) {
    n.orders.set(order, { start: n.line.length, count: list.length })
    for (const [, line, item, quantity] of list) {
      n.line.push(line)
      n.item.push(item)
      n.quantity.push(quantity)
    }
  }
  return { ...n, free: items.map((i) => stock[i]?.[0] ?? 0), incoming: items.map((i) => stock[i]?.[1] ?? 0) }
}

describe('availability', () => {
  it('serves earlier orders first from free stock, then from planned receipts', () => {
    const orders = [
      { ID: 'late', startDay: 20 },
      { ID: 'early', startDay: 10 },
      { ID: 'last', startDay: 30 },
    ]
    const n = needs(
      [
        ['early', 'A', 6, 10],
        ['late', 'A', 6, 10],
        ['last', 'A', 5, 10],
      ],
      { A: [8, 5] },
    )
    const r = availability(orders, n)
    expect(r.orders.get('early')).toBe('inStock')
    expect(r.orders.get('late')).toBe('expected')
    expect(r.orders.get('last')).toBe('notAvailable')
    expect(r.line('late', 10)).toBe('expected')
    expect(r.line('late', 20)).toBeUndefined()
    expect(r.line('unknown', 10)).toBeUndefined()
  })

  it('shows the worse of two lines that share a number (a line number used twice in an order)', () => {
    const n = needs(
      [
        ['o', 'A', 1, 1],
        ['o', 'B', 1, 1],
      ],
      { A: [5, 0] },
    )
    expect(availability([{ ID: 'o', startDay: 1 }], n).line('o', 1)).toBe('notAvailable')
  })

  it('takes the worst line, passes over lines that need nothing, and knows orders without material', () => {
    const orders = [
      { ID: 'o', startDay: 1 },
      { ID: 'empty', startDay: 1 },
      { ID: 'done', startDay: 1 },
    ]
    const n = needs(
      [
        ['o', 'A', 1],
        ['o', 'B', 1],
        ['done', 'C', 0],
      ],
      { A: [5, 0] },
    )
    const r = availability(orders, n)
    expect(r.orders.get('o')).toBe('notAvailable')
    expect(r.orders.get('empty')).toBe('none')
    expect(r.orders.get('done')).toBe('none')
    expect(r.line('done', 30)).toBeUndefined()
  })

  it('a later order gets what an earlier one left, item by item', () => {
    const n = needs(
      [
        ['first', 'A', 3],
        ['first', 'B', 1],
        ['second', 'A', 2],
        ['second', 'B', 1],
      ],
      { A: [5, 0], B: [1, 1] },
    )
    const r = availability(
      [
        { ID: 'second', startDay: 2 },
        { ID: 'first', startDay: 1 },
      ],
      n,
    )
    expect(r.orders.get('first')).toBe('inStock')
    expect(r.orders.get('second')).toBe('expected')
  })
})

describe('availability at scale', () => {
  it('handles ten thousand orders with five lines each in well under a second', () => {
    const orders = Array.from({ length: 10_000 }, (_, i) => ({ ID: `o${i}`, startDay: i % 300 }))
    const stock = Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`I${i}`, [20, 10] as [number, number]]))
    const n = needs(
      orders.flatMap((o, i) => Array.from({ length: 5 }, (_, l) => [o.ID, `I${(i * 5 + l) % 2000}`, 2] as [string, string, number])),
      stock,
    )
    const t0 = performance.now()
    const r = availability(orders, n)
    expect(performance.now() - t0).toBeLessThan(1000)
    expect(r.orders.size).toBe(10_000)
    expect(new Set(r.orders.values())).toEqual(new Set(['inStock', 'expected', 'notAvailable']))
  })
})
