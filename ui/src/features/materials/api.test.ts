import { afterEach, describe, expect, it, vi } from 'vitest'
import { json } from '../../test/fixtures.ts'
import { fetchMaterialPage, type MaterialQuery } from './api.ts'

const BOLT = 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'
const W1 = 'cccccccc-cccc-cccc-cccc-cccccccccccc'
const SO = '11111111-1111-1111-1111-111111111111'

/** The server's answer: one item short from its shop order's day. */
const PAGE = {
  counts: { short: 1, expected: 0, inStock: 4 },
  total: 1,
  offset: 0,
  items: [
    {
      item: BOLT,
      info: { code: 'BOLT-8', description: 'Bolt M8', itemGroup: 'g1', unit: 'Piece' },
      availability: 'short',
      firstShortDay: '2026-12-08',
      firstShortBalance: -1,
      free: 1,
      demand: 2,
      supply: 0,
      lowest: -1,
      endBalance: -1,
      lines: [
        { kind: 'FI', day: null, quantity: 1, balance: 1, warehouse: W1, project: '', refId: '', refNumber: '1' },
        { kind: 'MS', day: '2026-12-08', quantity: -2, balance: -1, warehouse: W1, project: '', refId: SO, refNumber: '24001' },
      ],
    },
    // an item the local copy does not name (yet)
    {
      item: 'bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb',
      availability: 'short',
      firstShortBalance: -1,
      free: 0,
      demand: 1,
      supply: 0,
      lowest: -1,
      endBalance: -1,
      lines: [],
    },
  ],
}

const QUERY: MaterialQuery = { search: ' bolt ', warehouse: W1, itemGroup: '', project: '', show: 'short', limit: 100 }

afterEach(() => vi.unstubAllGlobals())

describe('the Materials screen’s read', () => {
  it('asks the server for a page of its projection, with only the filters set', async () => {
    const fetch = vi.fn(async () => json(PAGE))
    vi.stubGlobal('fetch', fetch)
    const page = await fetchMaterialPage(QUERY)
    expect(fetch).toHaveBeenCalledTimes(1)
    const url = new URL(String(fetch.mock.calls[0]?.[0 as never]), 'http://x')
    expect(url.pathname).toBe('/api/v1/materials/shortages')
    expect(Object.fromEntries(url.searchParams)).toEqual({ show: 'short', limit: '100', search: 'bolt', warehouse: W1 })
    expect(page.counts).toEqual(PAGE.counts)
    expect(page.total).toBe(1)
    const [bolt, unnamed] = page.rows
    expect(bolt?.item).toEqual({ id: BOLT, code: 'BOLT-8', description: 'Bolt M8', itemGroup: 'g1', unit: 'Piece' })
    expect(bolt?.projection.firstShortDay).toBe('2026-12-08')
    expect(bolt?.projection.lines.map((l) => [l.kind, l.item, l.day, l.quantity, l.balance])).toEqual([
      ['FI', BOLT, null, 1, 1],
      ['MS', BOLT, '2026-12-08', -2, -1],
    ])
    expect(unnamed?.item).toBeUndefined()
    expect(unnamed?.projection.firstShortDay).toBeNull()
  })
})
