import { afterEach, describe, expect, it, vi } from 'vitest'
import { json } from '../test/fixtures.ts'
import { dbGetAll, dbJoinsAll, MAX_LIMIT, PAGES_AT_ONCE } from './db.ts'

afterEach(() => vi.unstubAllGlobals())

/** The pages in the order their answers went out. */
let answered: number[] = []

/** A table of `size` rows served a page at a time as the server does; the URLs asked are kept. */
function serve(size: number, delay?: (page: number) => number) {
  const asked: URL[] = []
  answered = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const u = new URL(url, 'http://esm.test')
      asked.push(u)
      const wait = delay?.(Number(u.searchParams.get('offset') ?? 0) / MAX_LIMIT) ?? 0
      if (wait) await new Promise((r) => setTimeout(r, wait))
      answered.push(Number(u.searchParams.get('offset') ?? 0) / MAX_LIMIT)
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
    // the pages in flight when the short one came are the only ones past it
    expect(asked.length).toBeGreaterThanOrEqual(61)
    expect(asked.length).toBeLessThan(61 + PAGES_AT_ONCE)
    expect(asked[1].searchParams.get('offset')).toBe(String(MAX_LIMIT))
    expect(asked[1].searchParams.get('Type')).toBe('eq.1')
  })

  it('asks past a last page that is exactly full, and keeps nothing twice', async () => {
    const asked = serve(2 * MAX_LIMIT)
    const rows = await dbGetAll<{ ID: string }>('items', [])
    expect(rows).toHaveLength(2 * MAX_LIMIT)
    expect(new Set(rows.map((r) => r.ID)).size).toBe(2 * MAX_LIMIT)
    // each page once; past the empty third only what was already on its way
    const offsets = asked.map((u) => Number(u.searchParams.get('offset')))
    expect(new Set(offsets).size).toBe(offsets.length)
    expect(offsets.slice(0, 3)).toEqual([0, MAX_LIMIT, 2 * MAX_LIMIT])
    expect(asked.length).toBeLessThan(3 + 2 * PAGES_AT_ONCE)
  })

  it('keeps the rows in page order however the pages come in, and a slow page holds back no other', async () => {
    // page 1 takes longest: the others are asked for while it is still on its way
    const asked = serve(9_500, (page) => (page === 1 ? 40 : page % 2 ? 5 : 1))
    const rows = await dbGetAll<{ ID: string }>('shopOrders', [])
    expect(rows.map((r) => r.ID)).toEqual(Array.from({ length: 9_500 }, (_, i) => `r${i}`))
    expect(asked.length).toBeLessThan(10 + PAGES_AT_ONCE)
    // pages past the first window were read while page 1 was still on its way
    expect(answered.indexOf(PAGES_AT_ONCE + 1)).toBeLessThan(answered.indexOf(1))
  })

  it('a page that fails fails the read', async () => {
    const failing = vi.fn(async (url: string) => {
      const page = Number(new URL(url, 'http://esm.test').searchParams.get('offset') ?? 0) / MAX_LIMIT
      if (page === 2) return json({ error: { code: 'INTERNAL', message: 'The server failed' } }, 500)
      const rows = Array.from({ length: page < 5 ? MAX_LIMIT : 0 }, (_, i) => ({ ID: `r${page * MAX_LIMIT + i}` }))
      return json(rows)
    })
    vi.stubGlobal('fetch', failing)
    await expect(dbGetAll('shopOrders', [])).rejects.toThrow()
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
    expect(new Set(asked.map((u) => u.pathname))).toEqual(new Set(['/api/v1/db/joins']))
    expect(asked[2].searchParams.get('table')).toBe('shopOrderMaterialPlans')
    expect(JSON.parse(asked[2].searchParams.get('joins') ?? '')).toEqual(joins)
    expect(asked[2].searchParams.get('offset')).toBe('2000')
  })
})
