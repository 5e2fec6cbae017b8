import { afterEach, describe, expect, it, vi } from 'vitest'
import { json } from '../../test/fixtures.ts'
import { fetchMaterialData } from './api.ts'

const SO = '11111111-1111-1111-1111-111111111111'
const DONE = '22222222-2222-2222-2222-222222222222'
const BOLT = 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa'
const FRAME = 'bbbbbbbb-bbbb-bbbb-bbbb-bbbbbbbbbbbb'
const W1 = 'cccccccc-cccc-cccc-cccc-cccccccccccc'
const ORDER = 'dddddddd-dddd-dddd-dddd-dddddddddddd'
const ms = (day: string) => `/Date(${Date.parse(day + 'T00:00:00Z')})/`

/** The server's answer: one open order making a frame from bolts, one sales line of frames. */
const ROWS = {
  shopOrders: [
    { ID: SO, ShopOrderNumber: 24001, Status: 20, Item: FRAME, PlannedQuantity: 5, ProducedQuantity: 2, PlannedDate: ms('2026-12-10'), Warehouse: W1 },
  ],
  plans: [
    // 8 planned, 5 issued in Exact, 1 on its way: 2 still needed
    { ID: 'P1', ShopOrder: SO, Item: BOLT, PlannedQuantity: 8, PlannedDate: ms('2026-12-08'), Status: 25, Type: 1, IssuedQuantity: 5, QueuedQuantity: 1 },
    // issued in full: nothing needed
    { ID: 'P2', ShopOrder: SO, Item: BOLT, PlannedQuantity: 3, PlannedDate: ms('2026-12-08'), Status: 25, Type: 1, IssuedQuantity: 3, QueuedQuantity: 0 },
    // an order the answer does not hold (finished): nothing needed
    { ID: 'P3', ShopOrder: DONE, Item: BOLT, PlannedQuantity: 4, PlannedDate: ms('2026-12-08'), Status: 10, Type: 1, IssuedQuantity: 0, QueuedQuantity: 0 },
  ],
  salesLines: [{ ID: 'S1', OrderID: ORDER, OrderNumber: 31, Item: FRAME, Quantity: 4, QuantityDelivered: 1, DeliveryDate: ms('2026-12-20'), Status: 12 }],
  salesWarehouses: { [ORDER]: W1 },
  items: [
    { ID: BOLT, Code: 'BOLT-8', Description: 'Bolt M8', ItemGroup: 'G1', Unit: 'pc', UnitDescription: 'Piece' },
    { ID: FRAME, Code: 'FR-1', Description: 'Frame', ItemGroup: 'G2', Unit: 'pc' },
  ],
  stockPositions: [{ ItemId: BOLT, Warehouse: W1, WarehouseCode: '1', FreeStock: 1, CurrentStock: 3 }],
}

afterEach(() => vi.unstubAllGlobals())

describe('the Materials screen’s read', () => {
  it('makes its lines from the server’s one answer, less what was issued and what is on its way', async () => {
    const fetch = vi.fn(async () => json(ROWS))
    vi.stubGlobal('fetch', fetch)
    const data = await fetchMaterialData()
    expect(fetch).toHaveBeenCalledTimes(1)
    expect(String(fetch.mock.calls[0]?.[0 as never])).toBe('/api/v1/materials/rows')
    const lines = data.lines.map((l) => [l.kind, l.item === BOLT ? 'bolt' : 'frame', l.quantity, l.day, l.warehouse])
    expect(lines).toEqual([
      ['SO', 'frame', -3, '2026-12-20', W1],
      ['MA', 'frame', 3, '2026-12-10', W1],
      ['MS', 'bolt', -2, '2026-12-08', W1],
      ['FI', 'bolt', 1, null, W1],
    ])
    expect(data.items.get(BOLT)).toEqual({ id: BOLT, code: 'BOLT-8', description: 'Bolt M8', itemGroup: 'g1', unit: 'Piece' })
  })
})
