import { describe, expect, it } from 'vitest'
import { datedRows } from './rows.ts'

const order = (n: number, start: string | null, end: string | null) => ({
  ID: `id-${n}`,
  ShopOrderNumber: n,
  PlannedStartDate: start,
  PlannedDate: end,
})

describe('the timeline rows', () => {
  const read = [order(3, '2026-11-10', '2026-11-12'), order(1, '2026-11-02', '2026-11-04'), order(2, '2026-11-05', '2026-11-06')]

  it('sorts by start, then number, and leaves out orders without dates', () => {
    const rows = datedRows([...read, order(4, null, null)], (o) => o)
    expect(rows.map((r) => r.order.ShopOrderNumber)).toEqual([1, 2, 3])
    expect(rows[0].endDay - rows[0].startDay).toBe(2)
  })

  it('keeps a moved order in its row while its change is being written', () => {
    // order 1 dragged past the others: its bar shows the new dates, its row stays first
    const moved = (o: (typeof read)[number]) => (o.ShopOrderNumber === 1 ? { ...o, PlannedStartDate: '2026-11-20', PlannedDate: '2026-11-22' } : o)
    const rows = datedRows(read, moved)
    expect(rows.map((r) => r.order.ShopOrderNumber)).toEqual([1, 2, 3])
    expect(rows[0].order.PlannedStartDate).toBe('2026-11-20')
    expect(rows[0].startDay).toBe(Date.UTC(2026, 10, 20) / 86_400_000)
  })
})
