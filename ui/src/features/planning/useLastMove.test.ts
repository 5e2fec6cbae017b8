import { act, renderHook, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { outboxEntry } from '../../test/fixtures.ts'
import { useLastMove } from './useLastMove.ts'
import { useShopOrderWrites } from './useShopOrderWrites.ts'

const ORDER = {
  ID: '00ff5d6e-6ccc-4215-af36-e04521eb96aa',
  ShopOrderNumber: 24012,
  PlannedStartDate: `/Date(${Date.UTC(2026, 10, 30)})/`,
  PlannedDate: `/Date(${Date.UTC(2026, 11, 2)})/`,
}
const MOVED = { PlannedStartDate: '2026-12-03', PlannedDate: '2026-12-05' }
const BEFORE = { PlannedStartDate: '2026-11-30', PlannedDate: '2026-12-02' }

function reply(status: number, body: unknown) {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json' } })
}
const delivered = () =>
  reply(200, { state: 'delivered', error: null, entries: [outboxEntry({ id: 7, action: 'updateShopOrder', method: 'PUT', state: 'delivered' })] })

/** The planning's two hooks together, as the screen has them. */
function usePlanning() {
  const writes = useShopOrderWrites()
  return { ...writes, moves: useLastMove(writes.write) }
}

const bodies = (fetch: ReturnType<typeof vi.fn>) =>
  fetch.mock.calls.filter(([url]) => url === '/api/v1/exact/updateShopOrder').map(([, init]) => JSON.parse(String((init as RequestInit).body)))

afterEach(() => vi.unstubAllGlobals())

describe('useLastMove', () => {
  it('writes a move, and Undo writes the dates before it back through the same path', async () => {
    const fetch = vi.fn(async () => delivered())
    vi.stubGlobal('fetch', fetch)
    const { result } = renderHook(() => usePlanning())
    act(() => result.current.moves.move([{ order: ORDER, change: MOVED }]))
    const move = result.current.moves.last
    expect(move).toMatchObject({ back: false, orders: [{ id: ORDER.ID, number: 24012, before: BEFORE, after: MOVED }] })
    await waitFor(() => expect(result.current.writes[0]).toMatchObject({ status: 'delivered', move: move?.id }))
    expect(result.current.overrides[ORDER.ID]).toEqual(MOVED)

    act(() => result.current.moves.undo())
    // the bar is back at once, the toast says so, and the old dates went out as a write
    expect(result.current.overrides[ORDER.ID]).toEqual(BEFORE)
    expect(result.current.moves.last).toMatchObject({ back: true, orders: [{ after: BEFORE }] })
    await waitFor(() => expect(result.current.writes[0]).toMatchObject({ status: 'delivered', move: result.current.moves.last?.id }))
    expect(bodies(fetch)).toEqual([
      { ID: ORDER.ID, ...MOVED },
      { ID: ORDER.ID, ...BEFORE },
    ])
    // an undo has no undo of its own
    act(() => result.current.moves.undo())
    expect(bodies(fetch)).toHaveLength(2)
  })

  it('puts the bar back at once but sends the undo once the move has its answer, so the outbox has them in order', async () => {
    let answer: (r: Response) => void = () => {}
    const fetch = vi.fn((): Promise<Response> => (bodies(fetch).length === 1 ? new Promise((r) => (answer = r)) : Promise.resolve(delivered())))
    vi.stubGlobal('fetch', fetch)
    const { result } = renderHook(() => usePlanning())
    act(() => result.current.moves.move([{ order: ORDER, change: MOVED }]))
    act(() => result.current.moves.undo())
    // the bar is back at once; the write waits for the move's answer
    expect(result.current.overrides[ORDER.ID]).toEqual(BEFORE)
    await act(() => new Promise((r) => setTimeout(r, 50)))
    expect(bodies(fetch)).toHaveLength(1)
    await act(async () => answer(delivered()))
    await waitFor(() => expect(bodies(fetch)).toHaveLength(2))
    expect(bodies(fetch)).toEqual([
      { ID: ORDER.ID, ...MOVED },
      { ID: ORDER.ID, ...BEFORE },
    ])
  })

  it('takes a whole project shift back, one write per order', async () => {
    const fetch = vi.fn(async () => delivered())
    vi.stubGlobal('fetch', fetch)
    const other = { ...ORDER, ID: 'b0000000-0000-4000-8000-000000000002', ShopOrderNumber: 24013 }
    const { result } = renderHook(() => usePlanning())
    act(() =>
      result.current.moves.move(
        [
          { order: ORDER, change: MOVED },
          { order: other, change: { PlannedStartDate: '2026-12-03' } },
        ],
        'Line 4',
      ),
    )
    expect(result.current.moves.last).toMatchObject({ project: 'Line 4', orders: [{ number: 24012 }, { number: 24013 }] })
    act(() => result.current.moves.undo())
    await waitFor(() => expect(bodies(fetch)).toHaveLength(4))
    expect(bodies(fetch).slice(2)).toEqual([
      { ID: ORDER.ID, ...BEFORE },
      { ID: other.ID, PlannedStartDate: '2026-11-30' },
    ])
  })

  it('forgets the move when its toast is closed', () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => delivered()),
    )
    const { result } = renderHook(() => usePlanning())
    act(() => result.current.moves.move([{ order: ORDER, change: MOVED }]))
    act(() => result.current.moves.dismiss())
    expect(result.current.moves.last).toBeNull()
  })
})
