import { afterEach, describe, expect, it, vi } from 'vitest'
import { setLanguage } from '../i18n/index.ts'
import { json } from '../test/fixtures.ts'
import { api, AS_OF_HEADER, isProviderUnreachable } from './client.ts'
import { liveGet } from './db.ts'
import { readDirect, readDirectByIds } from './exactDirect.ts'
import { joinLive, oldestAsOf } from './live.ts'
import { shouldRetry } from './queryClient.ts'

const STORED = Date.UTC(2026, 10, 24, 13, 5)
const OLDER = Date.UTC(2026, 10, 24, 9, 30)

function answer(body: unknown, asOf?: number, status = 200): Response {
  const r = json(body, status)
  if (asOf !== undefined) r.headers.set(AS_OF_HEADER, String(asOf))
  return r
}

const UNREACHABLE = {
  error: {
    code: 'provider_unreachable',
    message: 'Exact Online cannot be reached right now: this needs Exact Online, local data and queued changes keep working',
  },
}

afterEach(() => {
  vi.unstubAllGlobals()
  setLanguage('en', false)
})

describe('live reads', () => {
  it('are live (no as-of) without the header', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => answer({ responseDirect: { results: [{ ID: 'a' }] } })),
    )
    expect(await readDirect('purchaseorder/GoodsReceipts')).toEqual({ rows: [{ ID: 'a' }], asOf: null })
  })

  it('carry the stored copy’s time from X-Data-As-Of', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => answer({ responseDirect: { results: [{ ID: 'a' }], truncated: false } }, STORED)),
    )
    expect(await readDirect('purchaseorder/GoodsReceipts')).toEqual({ rows: [{ ID: 'a' }], asOf: STORED })
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => answer([{ ID: 'w', Code: '1', Description: 'Main' }], STORED)),
    )
    expect(await liveGet('warehouses')).toEqual({ rows: [{ ID: 'w', Code: '1', Description: 'Main' }], asOf: STORED })
  })

  it('take the body’s asOf when the header is missing, and ignore a header that is no time', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => answer({ responseDirect: { results: [], asOf: OLDER } })),
    )
    expect((await readDirect('x')).asOf).toBe(OLDER)
    const bad = json([])
    bad.headers.set(AS_OF_HEADER, 'yesterday')
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => bad),
    )
    expect((await liveGet('warehouses')).asOf).toBeNull()
  })

  it('read in parts are as of the oldest part', async () => {
    const asOfs = [null, OLDER, STORED]
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => answer({ responseDirect: { results: [{ ID: 'x' }] } }, asOfs.shift() ?? undefined)),
    )
    const ids = Array.from({ length: 100 }, (_, i) => `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`)
    const read = await readDirectByIds('purchaseorder/GoodsReceiptLines', 'GoodsReceiptID', ids)
    expect(read.rows).toHaveLength(3)
    expect(read.asOf).toBe(OLDER)
    expect(oldestAsOf(null, undefined)).toBeNull()
    expect(
      joinLive([
        { rows: [1], asOf: STORED },
        { rows: [2], asOf: null },
      ]),
    ).toEqual({ rows: [1, 2], asOf: STORED })
  })

  it('turn a 503 provider_unreachable into the server’s message, and are not retried', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => answer(UNREACHABLE, undefined, 503)),
    )
    const e = await readDirect('purchaseorder/GoodsReceipts').catch((x: unknown) => x)
    expect(e).toMatchObject({ status: 503, code: 'provider_unreachable', message: UNREACHABLE.error.message })
    expect(isProviderUnreachable(e)).toBe(true)
    expect(shouldRetry(0, e)).toBe(false)
  })

  it('never show the browser’s own text when the server cannot be reached', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))),
    )
    const e = await api('/x').catch((x: unknown) => x)
    expect(e).toMatchObject({ status: 0, code: 'timeout' })
    expect((e as Error).message).not.toContain('Failed to fetch')
    expect(shouldRetry(0, e)).toBe(true)
  })
})
