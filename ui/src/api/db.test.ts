import { afterEach, describe, expect, it, vi } from 'vitest'
import { json } from '../test/fixtures.ts'
import { dbGetAll, dbJoinsAll, MAX_LIMIT, PAGES_AT_ONCE } from './db.ts'

afterEach(() => vi.unstubAllGlobals())

/** A table of `size` rows served a page at a time as the server does; the URLs asked are kept. */
function serve(size: number) {
  const asked: URL[] = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const u = new URL(url, 'http://esm.test')
      asked.push(u)
      const offset = Number(u.searchParams.get('offset') ?? 0)
      const limit = Number(u.searchParams.get('limit') ?? MAX_LIMIT)
      const rows = Array.from({ length: Math.max(0, Math.min(limit, size - offset)) }, (_, i) => ({ ID: `r${offset + i}` }))
      return json(rows)
    }),
  )
  return asked
}

describe('dbGetAll', () => {
  it('reads past any page count: 60,500 rows are 61 pages, all of them kept', async () => {
    const asked = serve(60_500)
    const rows = await dbGetAll<{ ID: string }>('shopOrderMaterialPlans', [['Type', 'eq.1']])
    expect(rows).toHaveLength(60_500)
    expect(rows.at(-1)?.ID).toBe('r60499')
    expect(asked).toHaveLength(61)
    expect(asked[1].searchParams.get('offset')).toBe(String(MAX_LIMIT))
    expect(asked[1].searchParams.get('Type')).toBe('eq.1')
  })

  it('asks past a last page that is exactly full, and keeps nothing twice', async () => {
    const asked = serve(2 * MAX_LIMIT)
    const rows = await dbGetAll<{ ID: string }>('items', [])
    expect(rows).toHaveLength(2 * MAX_LIMIT)
    expect(new Set(rows.map((r) => r.ID)).size).toBe(2 * MAX_LIMIT)
    // the first page alone, then the next PAGES_AT_ONCE together
    expect(asked).toHaveLength(1 + PAGES_AT_ONCE)
  })

  it('reads one page once when the answer fits it', async () => {
    const asked = serve(999)
    expect(await dbGetAll('items', [])).toHaveLength(999)
    expect(asked).toHaveLength(1)
  })
})

describe('dbJoinsAll', () => {
  it('pages a join query the same way, keeping its table and joins', async () => {
    const asked = serve(2_345)
    const joins = [{ source: 'shopOrders', joinOn: ['ID'], joinOnSelf: ['ShopOrder'] }]
    const rows = await dbJoinsAll('shopOrderMaterialPlans', joins, [['Item', 'in.(a,b)']])
    expect(rows).toHaveLength(2_345)
    expect(asked.map((u) => u.pathname)).toEqual(Array(1 + PAGES_AT_ONCE).fill('/api/v1/db/joins'))
    expect(asked[2].searchParams.get('table')).toBe('shopOrderMaterialPlans')
    expect(JSON.parse(asked[2].searchParams.get('joins') ?? '')).toEqual(joins)
    expect(asked[2].searchParams.get('offset')).toBe('2000')
  })
})
