import { act, renderHook, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { OutboxEntry } from '../../api/outbox.ts'
import { outboxEntry } from '../../test/fixtures.ts'
import { useShopOrderWrites } from './useShopOrderWrites.ts'

const ORDER = { ID: '00ff5d6e-6ccc-4215-af36-e04521eb96aa', ShopOrderNumber: 24001 }

function reply(status: number, body: unknown) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } })
}

const entry = (state: OutboxEntry['state'], error: string | null = null) => outboxEntry({ id: 7, action: 'updateShopOrder', method: 'PUT', state, error })

afterEach(() => vi.unstubAllGlobals())

describe('useShopOrderWrites', () => {
  it('shows a change at once and keeps it when Exact Online takes it', async () => {
    const fetch = vi.fn(async () => reply(200, { state: 'delivered', error: null, entries: [entry('delivered')] }))
    vi.stubGlobal('fetch', fetch)
    const { result } = renderHook(() => useShopOrderWrites())
    await act(() => result.current.write(ORDER, { PlannedStartDate: '2026-11-23' }))
    expect(result.current.overrides[ORDER.ID]).toEqual({ PlannedStartDate: '2026-11-23' })
    expect(result.current.writes[0]).toMatchObject({ status: 'delivered', number: 24001 })
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit]
    expect(url).toBe('/api/v1/exact/updateShopOrder')
    expect(JSON.parse(String(init.body))).toEqual({ ID: ORDER.ID, PlannedStartDate: '2026-11-23' })
  })

  it('shows a new selection code by its code but sends only its id', async () => {
    const fetch = vi.fn(async () => reply(200, { state: 'delivered', error: null, entries: [entry('delivered')] }))
    vi.stubGlobal('fetch', fetch)
    const { result } = renderHook(() => useShopOrderWrites())
    const code = '5e1f0a3c-0000-4000-8000-000000000001'
    await act(() => result.current.write(ORDER, { SelectionCode: code, YourRef: 'PO-9' }, { SelectionCodeCode: 'RUSH' }))
    expect(result.current.overrides[ORDER.ID]).toEqual({ SelectionCode: code, YourRef: 'PO-9', SelectionCodeCode: 'RUSH' })
    expect(result.current.writes[0].shown).toEqual({ SelectionCodeCode: 'RUSH' })
    const [, init] = fetch.mock.calls[0] as unknown as [string, RequestInit]
    expect(JSON.parse(String(init.body))).toEqual({ ID: ORDER.ID, SelectionCode: code, YourRef: 'PO-9' })
  })

  it('undoes a refused change and keeps Exact Online’s message', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => reply(422, { state: 'failed', error: 'Datum ongeldig', entries: [] })),
    )
    const { result } = renderHook(() => useShopOrderWrites())
    await act(() => result.current.write(ORDER, { IsOnHold: 1 }))
    expect(result.current.overrides[ORDER.ID]).toBeUndefined()
    expect(result.current.writes[0]).toMatchObject({ status: 'failed', error: 'Datum ongeldig' })
  })

  it('follows a queued change until it is delivered', async () => {
    const answers = [reply(202, { state: 'pending', error: null, entries: [entry('pending')] }), reply(200, entry('sending')), reply(200, entry('delivered'))]
    const fetch = vi.fn(async () => answers.shift() ?? reply(200, entry('delivered')))
    vi.stubGlobal('fetch', fetch)
    const { result } = renderHook(() => useShopOrderWrites())
    await act(() => result.current.write(ORDER, { IsReleased: 1 }))
    expect(result.current.writes[0].status).toBe('pending')
    await waitFor(() => expect(result.current.writes[0].status).toBe('delivered'), { timeout: 5_000 })
    expect((fetch.mock.calls[1] as unknown as [string])[0]).toBe('/api/v1/outbox/7')
    expect(result.current.overrides[ORDER.ID]).toEqual({ IsReleased: 1 })
  })

  it('keeps a dragged bar where it was put while its write waits for Exact Online', async () => {
    const why = 'Waiting for Exact Online: could not connect'
    const answers = [
      reply(202, { state: 'pending', error: null, entries: [entry('pending', why)] }),
      // the server is briefly away while the write is followed: no undo either
      reply(503, { error: { code: 'provider_unreachable', message: 'Exact Online cannot be reached right now' } }),
      reply(200, entry('sending', 'Waiting for Jan de Vries to sign in with Exact Online again')),
    ]
    const fetch = vi.fn(async () => answers.shift() ?? reply(200, entry('pending', 'Waiting for Jan de Vries to sign in with Exact Online again')))
    vi.stubGlobal('fetch', fetch)
    const { result } = renderHook(() => useShopOrderWrites())
    const moved = { PlannedStartDate: '2026-11-30', PlannedDate: '2026-12-02' }
    await act(() => result.current.write(ORDER, moved))
    // the button's write came back at once as queued, with why it waits
    expect(result.current.writes[0]).toMatchObject({ status: 'pending', error: why })
    expect(result.current.overrides[ORDER.ID]).toEqual(moved)
    await waitFor(() => expect(fetch.mock.calls.length).toBeGreaterThanOrEqual(4), { timeout: 8_000 })
    expect(result.current.writes[0].status).toBe('pending')
    expect(result.current.writes[0].error).toBe('Waiting for Jan de Vries to sign in with Exact Online again')
    expect(result.current.overrides[ORDER.ID]).toEqual(moved)
  }, 10_000)
})
