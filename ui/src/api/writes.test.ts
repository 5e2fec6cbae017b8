import { afterEach, describe, expect, it, vi } from 'vitest'
import { outboxEntry } from '../test/fixtures.ts'
import type { OutboxEntry } from './outbox.ts'
import { combine, deleteFromExact, idempotencyKey, SEND_TRIES, sendWrite } from './writes.ts'

const entry = (state: OutboxEntry['state'], error: string | null = null) => outboxEntry({ state, error })

describe('combine', () => {
  it('a refusal wins and carries its message', () => {
    expect(combine([entry('delivered'), entry('failed', 'Verplicht: Item')])).toEqual({ state: 'failed', message: 'Verplicht: Item' })
  })
  it('an open entry says why it waits, which is no refusal', () => {
    expect(combine([entry('delivered'), entry('pending', 'Waiting for Jan de Vries to sign in with Exact Online again')])).toEqual({
      state: 'pending',
      message: 'Waiting for Jan de Vries to sign in with Exact Online again',
    })
  })
  it('delivered only when every entry is', () => {
    expect(combine([entry('delivered'), entry('delivered')]).state).toBe('delivered')
    expect(combine([entry('delivered'), entry('pending')]).state).toBe('pending')
    expect(combine([entry('sending'), entry('pending')]).state).toBe('sending')
    expect(combine([]).state).toBe('pending')
  })
})

describe('sendWrite', () => {
  const answer = (status: number, body: unknown) =>
    vi.fn(async (_url: string, _init?: RequestInit) => new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } }))
  afterEach(() => vi.unstubAllGlobals())

  it('waits for the provider and reports a queued write as pending with its entries', async () => {
    const fetchMock = answer(202, { state: 'pending', error: null, entries: [{ id: 7 }, { id: 8 }] })
    vi.stubGlobal('fetch', fetchMock)
    expect(await sendWrite('/exact/createGoodsReceipt', 'POST', { a: 1 })).toEqual({ state: 'pending', message: null, entryIds: [7, 8] })
    expect(fetchMock.mock.calls[0][0]).toBe('/api/v1/exact/createGoodsReceipt?wait=10')
  })

  it('reports a write queued during an outage (202 at once) as pending with why it waits', async () => {
    vi.stubGlobal(
      'fetch',
      answer(202, { state: 'pending', error: null, entries: [{ id: 9, state: 'pending', error: 'Waiting for Exact Online: could not connect' }] }),
    )
    expect(await sendWrite('/exact/timeTransactions', 'POST', {})).toEqual({
      state: 'pending',
      message: 'Waiting for Exact Online: could not connect',
      entryIds: [9],
    })
  })

  it('turns a refusal into an outcome with the provider message', async () => {
    vi.stubGlobal('fetch', answer(422, { state: 'failed', error: 'PurchaseOrderLineID: not found', entries: [] }))
    expect(await sendWrite('/exact/createGoodsReceipt', 'POST', {})).toEqual({ state: 'failed', message: 'PurchaseOrderLineID: not found', entryIds: [] })
    vi.stubGlobal('fetch', answer(400, { error: { code: 'bad_request', message: 'transfer line 1: Quantity must be more than 0' } }))
    expect((await sendWrite('/exact/createWarehouseTransfer', 'POST', {})).message).toBe('transfer line 1: Quantity must be more than 0')
  })

  it('lets other failures through', async () => {
    vi.stubGlobal('fetch', answer(500, { error: { code: 'unknown', message: 'boom' } }))
    await expect(sendWrite('/exact/timeTransactions', 'POST', {})).rejects.toThrow('boom')
  })

  it('deletes through deleteDataFromExact with the wait after the query', async () => {
    const fetchMock = answer(200, { state: 'delivered', error: null, entries: [{ id: 3, state: 'delivered', error: null }] })
    vi.stubGlobal('fetch', fetchMock)
    expect(await deleteFromExact('timeTransactions', 'a1b2')).toEqual({ state: 'delivered', message: null, entryIds: [3] })
    expect(fetchMock.mock.calls[0][0]).toBe('/api/v1/exact/deleteDataFromExact?endpoint=timeTransactions&id=a1b2&wait=10')
    expect(fetchMock.mock.calls[0][1]?.method).toBe('DELETE')
    expect(fetchMock.mock.calls[0][1]?.body).toBeUndefined()
  })
})

describe('idempotency keys', () => {
  afterEach(() => vi.unstubAllGlobals())
  const ok = () => new Response(JSON.stringify({ state: 'delivered', error: null, entries: [{ id: 3 }] }), { status: 200 })
  const keyOf = (init?: RequestInit) => (init?.headers as Record<string, string> | undefined)?.['Idempotency-Key']

  it('every write carries a key of its own', async () => {
    const fetchMock = vi.fn(async (_url: string, _init?: RequestInit) => ok())
    vi.stubGlobal('fetch', fetchMock)
    await sendWrite('/exact/createWarehouseTransfer', 'POST', { a: 1 })
    await sendWrite('/exact/createWarehouseTransfer', 'POST', { a: 1 })
    const [first, second] = fetchMock.mock.calls.map(([, init]) => keyOf(init))
    expect(first).toMatch(/^[0-9a-f-]{32,36}$/)
    expect(second).not.toBe(first)
  })

  it('a write whose answer was lost is sent again under the same key, then delivered', async () => {
    let calls = 0
    const fetchMock = vi.fn(async (_url: string, _init?: RequestInit) => {
      calls++
      if (calls < SEND_TRIES) throw new TypeError('Failed to fetch')
      return ok()
    })
    vi.stubGlobal('fetch', fetchMock)
    expect(await sendWrite('/exact/createMaterialIssue', 'POST', { q: 2 }, { pauseMs: 0 })).toEqual({ state: 'delivered', message: null, entryIds: [3] })
    const keys = fetchMock.mock.calls.map(([, init]) => keyOf(init))
    expect(keys).toHaveLength(SEND_TRIES)
    expect(new Set(keys).size).toBe(1)
  })

  it('gives up after the last try with the catalogue message, and never resends a refusal', async () => {
    const lost = vi.fn(async (_url: string, _init?: RequestInit): Promise<Response> => {
      throw new TypeError('Failed to fetch')
    })
    vi.stubGlobal('fetch', lost)
    await expect(sendWrite('/exact/createMaterialIssue', 'POST', {}, { pauseMs: 0 })).rejects.toMatchObject({ code: 'timeout' })
    expect(lost).toHaveBeenCalledTimes(SEND_TRIES)

    const refused = vi.fn(
      async (_url: string, _init?: RequestInit) => new Response(JSON.stringify({ state: 'failed', error: 'Verplicht: Item', entries: [] }), { status: 422 }),
    )
    vi.stubGlobal('fetch', refused)
    expect((await sendWrite('/exact/createMaterialIssue', 'POST', {}, { pauseMs: 0 })).state).toBe('failed')
    expect(refused).toHaveBeenCalledTimes(1)
  })

  it('is made without randomUUID too (a handheld on plain http)', () => {
    const key = idempotencyKey({ getRandomValues: <T extends ArrayBufferView | null>(a: T) => a })
    expect(key).toBe('0'.repeat(32))
    expect(idempotencyKey()).not.toBe(idempotencyKey())
  })
})
