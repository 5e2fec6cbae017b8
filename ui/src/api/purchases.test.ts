import { describe, expect, it } from 'vitest'
import { orderFilters } from './purchases.ts'

const guid = (n: number) => `00000000-0000-0000-0000-${String(n).padStart(12, '0')}`

describe('purchase order line filters', () => {
  it('joins order ids with or, each filter within the URL budget', () => {
    const ids = Array.from({ length: 200 }, (_, i) => guid(i))
    const filters = orderFilters(ids)
    expect(filters.length).toBeGreaterThan(1)
    for (const f of filters) expect(encodeURIComponent(f).length).toBeLessThanOrEqual(3_600)
    // every id once, in order
    const back = filters.flatMap((f) => f.split(' or ').map((term) => /guid'([^']+)'/.exec(term)?.[1]))
    expect(back).toEqual(ids)
    expect(filters[0]).toMatch(/^PurchaseOrderID eq guid'00000000-0000-0000-0000-000000000000' or PurchaseOrderID eq guid'/)
  })

  it('gives no filter for no orders', () => {
    expect(orderFilters([])).toEqual([])
  })
})
