import { QueryClient } from '@tanstack/react-query'
import { describe, expect, it } from 'vitest'
import type { SyncStatus } from '../api/sync.ts'
import { classifyScan } from '../lib/scan.ts'
import { afterSyncTable, CATALOGUE_PATH, loadCatalogue, refreshCatalogue, type CatalogueRecord, type CatalogueWire } from './catalogue.ts'
import { memoryStore } from './idb.ts'

const W1 = 'aaaaaaaa-0000-4000-8000-000000000001'
const W2 = 'aaaaaaaa-0000-4000-8000-000000000002'
const BOLT = 'bbbbbbbb-0000-4000-8000-000000000001'
const NUT = 'bbbbbbbb-0000-4000-8000-000000000002'
const FRAME = 'bbbbbbbb-0000-4000-8000-000000000003'

function wire(division = 7): CatalogueWire {
  return {
    format: 1,
    division,
    asOf: 1_790_000_000_000,
    warehouses: [
      [W1, '1', 'Main'],
      [W2, '2', 'Yard'],
    ],
    locations: [
      ['cccccccc-0000-4000-8000-000000000001', 'A-01', 'Rack A', 0],
      ['cccccccc-0000-4000-8000-000000000002', 'B-02', null, 1],
    ],
    items: [
      [BOLT, 'BOLT-M6', 'Bolt M6', 'pc', '8712345678906', 0],
      // its code is the other item's barcode: the code wins
      [NUT, '8712345678906', 'Nut M6', 'pc', null, 0],
      [FRAME, 'FRAME-1', 'Frame', 'kg', '4006381333931', 1],
    ],
    locationStock: [
      [0, 0, 12],
      [0, 1, 3.5],
      [2, 1, 1],
    ],
    warehouseStock: [
      [0, 0, 12],
      [0, 1, 3.5],
    ],
    orders: [
      ['dddddddd-0000-4000-8000-000000000001', 24001, 10, 0, 2, 5, 0],
      ['dddddddd-0000-4000-8000-000000000002', 24002, 20, 1, 2, 2, 1],
    ],
    plans: [
      ['eeeeeeee-0000-4000-8000-000000000001', 0, 0, 8, 2],
      ['eeeeeeee-0000-4000-8000-000000000002', 1, 0, 4, null],
      ['eeeeeeee-0000-4000-8000-000000000003', 1, 1, 4, 4],
    ],
  }
}

const keyed = () => memoryStore<CatalogueRecord>((r) => r.division)

async function kept(w: CatalogueWire = wire()) {
  const store = keyed()
  await store.put({ division: w.division, etag: '"t1"', checkedAt: 0, json: JSON.stringify(w) })
  const c = await loadCatalogue(w.division, store)
  if (!c) throw new Error('no catalogue')
  return c
}

describe('scan catalogue lookups', () => {
  it('finds an item by exact code or barcode, the code winning', async () => {
    const c = await kept()
    expect(c.findItem('BOLT-M6')?.ID).toBe(BOLT)
    expect(c.findItem('8712345678906')?.Code).toBe('8712345678906')
    expect(c.findItem('4006381333931')).toMatchObject({ ID: FRAME, Description: 'Frame', Unit: 'kg', IsFractionAllowedItem: true })
    expect(c.findItem('bolt-m6')).toBeNull()
    expect(c.findItem('BOLT')).toBeNull()
    expect(c.itemById(BOLT.toUpperCase())?.Code).toBe('BOLT-M6')
    expect(c.itemById('ffffffff-0000-4000-8000-000000000000')).toBeNull()
    expect(c.asOf).toBe(1_790_000_000_000)
  })

  it('answers stock per location and per warehouse with their codes', async () => {
    const c = await kept()
    expect(c.stockOfItem(BOLT).map((s) => [s.StorageLocationCode, s.WarehouseCode, s.Stock])).toEqual([
      ['A-01', '1', 12],
      ['B-02', '2', 3.5],
    ])
    expect(c.warehouseStockOfItem(BOLT).map((s) => [s.Warehouse, s.WarehouseDescription, s.CurrentStock])).toEqual([
      [W1, 'Main', 12],
      [W2, 'Yard', 3.5],
    ])
    expect(c.stockOfItem(NUT)).toEqual([])
    expect(c.warehouseStockOfItem(FRAME)).toEqual([])
  })

  it('lists the open orders needing an item with their material lines, and orders by number', async () => {
    const c = await kept()
    const needing = c.ordersNeeding(BOLT)
    expect(needing.map(({ order, plan }) => [order.ShopOrderNumber, order.ItemCode, order.WarehouseCode, plan.ID, plan.PlannedQuantity, plan.IssuedQuantity])).toEqual([
      [24001, 'FRAME-1', '1', 'eeeeeeee-0000-4000-8000-000000000001', 8, 2],
      [24002, 'FRAME-1', '2', 'eeeeeeee-0000-4000-8000-000000000002', 4, null],
    ])
    expect(needing.every(({ order, plan }) => plan.ShopOrder === order.ID && plan.Item === BOLT)).toBe(true)
    expect(c.ordersNeeding(FRAME)).toEqual([])
    expect(c.shopOrderByNumber(24002)).toMatchObject({ Item: FRAME, Status: 20, PlannedQuantity: 2, ProducedQuantity: 1 })
    expect(c.shopOrderByNumber(99)).toBeNull()
  })

  it('gives the storage locations a scan is classified with', async () => {
    const c = await kept()
    const scan = classifyScan('b-02', c.locations())
    expect(scan).toMatchObject({ kind: 'location', location: { Code: 'B-02', Warehouse: W2, WarehouseCode: '2' } })
    expect(classifyScan('BOLT-M6', c.locations()).kind).toBe('item')
  })

  it('has nothing for another organization or another layout', async () => {
    const store = keyed()
    await store.put({ division: 7, etag: null, checkedAt: 0, json: JSON.stringify(wire()) })
    expect(await loadCatalogue(8, store)).toBeNull()
    await store.put({ division: 9, etag: null, checkedAt: 0, json: JSON.stringify({ ...wire(9), format: 2 }) })
    expect(await loadCatalogue(9, store)).toBeNull()
  })
})

describe('refreshing the kept catalogue', () => {
  it('keeps what the server sends and asks with its ETag next time', async () => {
    const store = keyed()
    const asked: (string | null)[] = []
    let body = wire()
    const fetchImpl = (async (url: string, init?: RequestInit) => {
      expect(url).toBe(CATALOGUE_PATH)
      const tag = new Headers(init?.headers).get('If-None-Match')
      asked.push(tag)
      if (tag === '"t1"' && body.asOf === 1_790_000_000_000) return new Response(null, { status: 304 })
      return new Response(JSON.stringify(body), { status: 200, headers: { ETag: body.asOf === 1_790_000_000_000 ? '"t1"' : '"t2"' } })
    }) as typeof fetch
    expect(await refreshCatalogue(7, { store, fetchImpl })).toBe(true)
    expect(await refreshCatalogue(7, { store, fetchImpl })).toBe(false)
    body = { ...wire(), asOf: 1_790_000_600_000 }
    expect(await refreshCatalogue(7, { store, fetchImpl })).toBe(true)
    expect(asked).toEqual([null, '"t1"', '"t1"'])
    expect((await loadCatalogue(7, store))?.asOf).toBe(1_790_000_600_000)
    expect((await store.get(7))?.etag).toBe('"t2"')
  })

  it('leaves the kept one when the server cannot be reached or refuses', async () => {
    const store = keyed()
    await store.put({ division: 7, etag: '"t1"', checkedAt: 0, json: JSON.stringify(wire()) })
    const down = (async () => {
      throw new TypeError('Failed to fetch')
    }) as typeof fetch
    await expect(refreshCatalogue(7, { store, fetchImpl: down })).rejects.toThrow('Failed to fetch')
    const refused = (async () => new Response('{"error":{"code":"not_authorized"}}', { status: 401 })) as typeof fetch
    await expect(refreshCatalogue(7, { store, fetchImpl: refused })).rejects.toThrow('401')
    expect((await loadCatalogue(7, store))?.findItem('BOLT-M6')?.ID).toBe(BOLT)
  })
})

describe('after a sync', () => {
  const answering = (asked: string[]) =>
    (async (url: string) => {
      asked.push(url)
      return new Response(JSON.stringify({ ...wire(), asOf: 1_790_000_900_000 }), { status: 200, headers: { ETag: '"t9"' } })
    }) as typeof fetch
  const status = (running: boolean) => async () => ({ running }) as SyncStatus

  it('refreshes a kept catalogue once the whole sync is over', async () => {
    const store = keyed()
    await store.put({ division: 7, etag: '"t1"', checkedAt: 0, json: JSON.stringify(wire()) })
    const asked: string[] = []
    await afterSyncTable(new QueryClient(), 7, { store, fetchImpl: answering(asked), status: status(true) })
    expect(asked).toEqual([])
    await afterSyncTable(new QueryClient(), 7, { store, fetchImpl: answering(asked), status: status(false) })
    expect(asked).toEqual([CATALOGUE_PATH])
    expect((await loadCatalogue(7, store))?.asOf).toBe(1_790_000_900_000)
  })

  it('downloads nothing on a device that never kept one', async () => {
    const store = keyed()
    const asked: string[] = []
    await afterSyncTable(new QueryClient(), 7, { store, fetchImpl: answering(asked), status: status(false) })
    expect(asked).toEqual([])
    expect(await store.get(7)).toBeUndefined()
  })
})
