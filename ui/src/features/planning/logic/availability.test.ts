import { describe, expect, it } from 'vitest'
import { availability, needsMaterial, worst } from './availability.ts'

const plan = (ShopOrder: string, Item: string, PlannedQuantity: number, extra: Partial<{ Type: number; Status: number; ID: string }> = {}) => ({
  ShopOrder,
  Item,
  PlannedQuantity,
  Type: 1,
  Status: 12,
  ...extra,
})

describe('availability', () => {
  it('serves earlier orders first from free stock, then from planned receipts', () => {
    const orders = [
      { ID: 'late', startDay: 20 },
      { ID: 'early', startDay: 10 },
      { ID: 'last', startDay: 30 },
    ]
    const plans = [plan('early', 'A', 6, { ID: 'p1' }), plan('late', 'A', 6, { ID: 'p2' }), plan('last', 'A', 5, { ID: 'p3' })]
    const stock = [
      { Item: 'A', FreeStock: 4, PlanningIn: 0 },
      { Item: 'A', FreeStock: 4, PlanningIn: 5 },
    ]
    const r = availability(orders, plans, stock)
    expect(r.orders.get('early')).toBe('inStock')
    expect(r.orders.get('late')).toBe('expected')
    expect(r.orders.get('last')).toBe('notAvailable')
    expect(r.lines.get('p2')).toBe('expected')
  })

  it('shows the worse of two lines that share an id (a line number used twice in an order)', () => {
    const plans = [plan('o', 'A', 1, { ID: 'o|1' }), plan('o', 'B', 1, { ID: 'o|1' })]
    const r = availability([{ ID: 'o', startDay: 1 }], plans, [{ Item: 'A', FreeStock: 5, PlanningIn: 0 }])
    expect(r.lines.get('o|1')).toBe('notAvailable')
  })

  it('takes the worst line, ignores by-products and finished lines, and knows orders without material', () => {
    const orders = [
      { ID: 'o', startDay: 1 },
      { ID: 'empty', startDay: 1 },
    ]
    const plans = [plan('o', 'A', 1), plan('o', 'B', 1), plan('o', 'C', 9, { Type: 2 }), plan('empty', 'C', 9, { Status: 45 })]
    const r = availability(orders, plans, [{ Item: 'A', FreeStock: 5, PlanningIn: 0 }])
    expect(r.orders.get('o')).toBe('notAvailable')
    expect(r.orders.get('empty')).toBe('none')
  })

  it('ranks states', () => {
    expect(worst('inStock', 'expected')).toBe('expected')
    expect(worst('none', 'inStock')).toBe('inStock')
    expect(needsMaterial({ Type: 1, Status: 21, PlannedQuantity: 3 })).toBe(false)
  })
})

describe('availability at scale', () => {
  it('handles ten thousand orders with five lines each in well under a second', () => {
    const orders = Array.from({ length: 10_000 }, (_, i) => ({ ID: `o${i}`, startDay: i % 300 }))
    const plans = orders.flatMap((o, i) => Array.from({ length: 5 }, (_, l) => plan(o.ID, `I${(i * 5 + l) % 2000}`, 2)))
    const stock = Array.from({ length: 2000 }, (_, i) => ({ Item: `I${i}`, FreeStock: 20, PlanningIn: 10 }))
    const t0 = performance.now()
    const r = availability(orders, plans, stock)
    expect(performance.now() - t0).toBeLessThan(1000)
    expect(r.orders.size).toBe(10_000)
    expect(new Set(r.orders.values())).toEqual(new Set(['inStock', 'expected', 'notAvailable']))
  })
})
