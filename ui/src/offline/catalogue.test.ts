import { QueryClient } from '@tanstack/react-query'
import { describe, expect, it, vi } from 'vitest'
import type { SyncStatus } from '../api/sync.ts'
import { classifyScan } from '../lib/scan.ts'
import {
  afterSyncTable,
  CATALOGUE_PATH,
  forgetCatalogues,
  isCatalogueRef,
  loadCatalogue,
  refreshCatalogue,
  type CatalogueRecord,
  type CatalogueWire,
} from './catalogue.ts'
import { memoryStore } from './idb.ts'

const W1 = 'aaaaaaaa-0000-4000-8000-000000000001'
const W2 = 'aaaaaaaa-0000-4000-8000-000000000002'
const W3 = 'aaaaaaaa-0000-4000-8000-000000000003'
const L1 = 'cccccccc-0000-4000-8000-000000000001'
const L2 = 'cccccccc-0000-4000-8000-0000000000f2'
// items, orders and lines are named by code and number: what a booking made from them carries
const BOLT = 'item:BOLT-M6'
const BOLT8 = 'item:BOLT-M8'
const FRAME = 'item:FRAME-1'
const O1 = 'shopOrder:24001'
const O2 = 'shopOrder:24002'

/** GUIDs as the server sends them: their bytes in the order of their hex digits, base64url. */
function guids(ids: string[]): string {
  const hex = ids.map((id) => id.replaceAll('-', '')).join('')
  const bytes = hex.match(/../g)?.map((b) => String.fromCharCode(parseInt(b, 16))) ?? []
  return btoa(bytes.join('')).replaceAll('+', '-').replaceAll('/', '_').replace(/=+$/, '')
}

function wire(division = 7): CatalogueWire {
  return {
    format: 5,
    division,
    asOf: 1_790_000_000_000,
    // the third keeps no storage locations
    warehouses: { id: guids([W1, W2, W3]), code: ['1', '2', '4'], description: ['Main', 'Yard', 'Vans'], unlocated: [2] },
    locations: { id: guids([L1, L2]), code: ['A-01', 'B-02'], description: ['Rack A', null], warehouse: [0, 1] },
    items: {
      // BOLT-M6, BOLT-M8 (sharing 6), then its code is BOLT's barcode: the code wins
      code: { shared: [0, 6, 0, 0], rest: ['BOLT-M6', '8', '8712345678906', 'FRAME-1'] },
      description: ['Bolt M6', 'Bolt M8', 'Nut M6', 'Frame'],
      units: ['pc', 'kg'],
      unit: [0, 0, 0, 1],
      barcode: ['8712345678906', null, null, '4006381333931'],
      fractions: '0001',
      // BOLT-M8 by serial number, FRAME by batch
      tracking: '0s0b',
    },
    // BOLT at A-01 12 and B-02 3.5, FRAME at B-02 1
    locationStock: { item: [0, 0, 3], place: [0, 1, 1], stock: [12, 3.5, 1] },
    // BOLT's as the sums at each warehouse's locations; FRAME's 7 at Main, where it is at no location
    warehouseStock: { item: [0, 0, 3], place: [0, 1, 0], stock: [null, null, 7] },
    orders: { number: [24001, 1], status: [10, 20], warehouse: [0, 1], item: [3, 3], planned: [5, 2], produced: [0, 1] },
    // BOLT's two lines, then NUT's
    plans: { item: [0, 0, 2], order: [0, 1, 1], line: [3, 1, 20], planned: [8, 4, 4], issued: [2, null, 1] },
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
  it('names the warehouses that keep no storage locations', async () => {
    const c = await kept()
    expect(c.unlocatedWarehouses()).toEqual([{ ID: W3, Code: '4', Description: 'Vans', UseStorageLocations: 0 }])
  })

  it('finds an item by exact code or barcode, the code winning', async () => {
    const c = await kept()
    expect(c.findItem('BOLT-M6')?.ID).toBe(BOLT)
    expect(c.findItem('8712345678906')?.Code).toBe('8712345678906')
    expect(c.findItem('4006381333931')).toMatchObject({ ID: FRAME, Description: 'Frame', Unit: 'kg', IsFractionAllowedItem: true })
    // the box's GTIN-14 of the same number
    expect(c.findItem('04006381333931')?.ID).toBe(FRAME)
    expect(c.findItem('bolt-m6')).toBeNull()
    expect(c.findItem('BOLT')).toBeNull()
    expect(c.itemById(BOLT8)).toMatchObject({
      ID: BOLT8,
      Code: 'BOLT-M8',
      Unit: 'pc',
      Barcode: null,
      IsFractionAllowedItem: false,
      IsSerialItem: true,
      IsBatchItem: false,
    })
    expect(c.findItem('4006381333931')).toMatchObject({ IsSerialItem: false, IsBatchItem: true })
    expect(c.findItem('FRAME-1')?.ID).toBe(FRAME)
    // a GUID (an item read live) is not among the catalogue's names; nor is another kind of name
    expect(c.itemById('ffffffff-0000-4000-8000-000000000000')).toBeNull()
    expect(c.itemById('shopOrder:24001')).toBeNull()
    expect(isCatalogueRef(BOLT) && isCatalogueRef(O1) && isCatalogueRef('plan:24001/3')).toBe(true)
    expect(isCatalogueRef('bbbbbbbb-0000-4000-8000-000000000001') || isCatalogueRef(null)).toBe(false)
    expect(c.asOf).toBe(1_790_000_000_000)
  })

  it('answers stock per location and per warehouse with their codes', async () => {
    const c = await kept()
    expect(c.stockOfItem('BOLT-M6').map((s) => [s.StorageLocationCode, s.WarehouseCode, s.Stock])).toEqual([
      ['A-01', '1', 12],
      ['B-02', '2', 3.5],
    ])
    expect(c.stockOfItem('BOLT-M6').map((s) => [s.ID, s.StorageLocation, s.Warehouse])).toEqual([
      [`${BOLT}/${L1}`, L1, W1],
      [`${BOLT}/${L2}`, L2, W2],
    ])
    expect(c.warehouseStockOfItem('BOLT-M6').map((s) => [s.Warehouse, s.WarehouseDescription, s.CurrentStock])).toEqual([
      [W1, 'Main', 12],
      [W2, 'Yard', 3.5],
    ])
    expect(c.stockOfItem('FRAME-1').map((s) => [s.StorageLocationCode, s.Stock])).toEqual([['B-02', 1]])
    expect(c.warehouseStockOfItem('FRAME-1').map((s) => [s.ID, s.WarehouseCode, s.CurrentStock])).toEqual([[`${FRAME}/${W1}`, '1', 7]])
    expect(c.stockOfItem('8712345678906')).toEqual([])
    expect(c.warehouseStockOfItem('8712345678906')).toEqual([])
    expect(c.stockOfItem('BOLT-M8')).toEqual([])
    expect(c.stockOfItem('NO-SUCH')).toEqual([])
  })

  it('lists what it expects at a storage location, by code', async () => {
    const c = await kept()
    expect(c.stockAtLocation(L2.toUpperCase()).map((r) => [r.item.Code, r.stock])).toEqual([
      ['BOLT-M6', 3.5],
      ['FRAME-1', 1],
    ])
    expect(c.stockAtLocation(L1).map((r) => [r.item.Code, r.stock])).toEqual([['BOLT-M6', 12]])
    expect(c.stockAtLocation('dddddddd-0000-4000-8000-000000000001')).toEqual([])
  })

  it('lists the open orders needing an item with their material lines, and orders by number', async () => {
    const c = await kept()
    const needing = c.ordersNeeding('BOLT-M6')
    expect(
      needing.map(({ order, plan }) => [order.ShopOrderNumber, order.ItemCode, order.WarehouseCode, plan.ID, plan.PlannedQuantity, plan.IssuedQuantity]),
    ).toEqual([
      [24001, 'FRAME-1', '1', 'plan:24001/3', 8, 2],
      [24002, 'FRAME-1', '2', 'plan:24002/1', 4, null],
    ])
    expect(needing.every(({ order, plan }) => plan.ShopOrder === order.ID && plan.Item === BOLT)).toBe(true)
    expect(needing.map(({ order }) => order.ID)).toEqual([O1, O2])
    expect(c.ordersNeeding('8712345678906').map(({ order, plan }) => [order.ShopOrderNumber, plan.ID, plan.ItemCode, plan.IssuedQuantity])).toEqual([
      [24002, 'plan:24002/20', '8712345678906', 1],
    ])
    expect(c.ordersNeeding('FRAME-1')).toEqual([])
    expect(c.ordersNeeding('BOLT-M8')).toEqual([])
    expect(c.shopOrderByNumber(24001)).toMatchObject({ ID: O1, Item: FRAME, ItemCode: 'FRAME-1', Warehouse: W1, WarehouseCode: '1' })
    expect(c.shopOrderByNumber(24002)).toMatchObject({ ID: O2, Item: FRAME, Status: 20, PlannedQuantity: 2, ProducedQuantity: 1 })
    expect(c.shopOrderByNumber(99)).toBeNull()
    expect(c.ordersMaking('FRAME-1').map((o) => [o.ID, o.Status])).toEqual([
      [O1, 10],
      [O2, 20],
    ])
    expect(c.ordersMaking('BOLT-M6')).toEqual([])
  })

  it('gives the storage locations a scan is classified with', async () => {
    const c = await kept()
    const scan = classifyScan('b-02', c.locations())
    expect(scan).toMatchObject({ kind: 'location', location: { ID: L2, Code: 'B-02', Description: null, Warehouse: W2, WarehouseCode: '2' } })
    expect(classifyScan('BOLT-M6', c.locations()).kind).toBe('item')
  })

  it('has nothing for another organization or another layout', async () => {
    const store = keyed()
    await store.put({ division: 7, etag: null, checkedAt: 0, json: JSON.stringify(wire()) })
    expect(await loadCatalogue(8, store)).toBeNull()
    await store.put({ division: 9, etag: null, checkedAt: 0, json: JSON.stringify({ ...wire(9), format: 4 }) })
    expect(await loadCatalogue(9, store)).toBeNull()
  })

  it('ignores a catalogue kept in an earlier layout, and one damaged', async () => {
    const store = keyed()
    const first = {
      format: 1,
      division: 7,
      asOf: 1,
      warehouses: [[W1, '1', 'Main']],
      locations: [],
      items: [[BOLT, 'BOLT-M6', null, null, null, 0]],
      locationStock: [],
      warehouseStock: [],
      orders: [],
      plans: [],
    }
    await store.put({ division: 7, etag: '"c1-7-0"', checkedAt: 0, json: JSON.stringify(first) })
    expect(await loadCatalogue(7, store)).toBeNull()
    // the second layout: items, orders and lines with their GUIDs, no line numbers
    const second = { ...wire(), format: 2, items: { ...wire().items, id: guids(['bbbbbbbb-0000-4000-8000-000000000001']) } }
    await store.put({ division: 7, etag: '"c2-7-0"', checkedAt: 0, json: JSON.stringify(second) })
    expect(await loadCatalogue(7, store)).toBeNull()
    // the third: no list of the warehouses without storage locations
    const { unlocated: _unlocated, ...third } = wire().warehouses
    await store.put({ division: 7, etag: '"c3-7-0"', checkedAt: 0, json: JSON.stringify({ ...wire(), format: 3, warehouses: third }) })
    expect(await loadCatalogue(7, store)).toBeNull()
    await store.put({ division: 7, etag: '"c3-7-1"', checkedAt: 0, json: JSON.stringify({ ...wire(), locations: { ...wire().locations, id: '!!' } }) })
    expect(await loadCatalogue(7, store)).toBeNull()
    await store.put({ division: 7, etag: '"c3-7-3"', checkedAt: 0, json: JSON.stringify({ ...wire(), plans: { ...wire().plans, line: [1] } }) })
    expect(await loadCatalogue(7, store)).toBeNull()
    await store.put({ division: 7, etag: '"c3-7-2"', checkedAt: 0, json: JSON.stringify({ ...wire(), warehouseStock: { item: [9], place: [0], stock: [1] } }) })
    expect(await loadCatalogue(7, store)).toBeNull()
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

describe('a session ending', () => {
  it("leaves no organization's catalogue on the device", async () => {
    const store = keyed()
    for (const division of [7, 8]) {
      await store.put({ division, etag: `"${division}"`, checkedAt: 0, json: JSON.stringify(wire(division)) })
      expect(await loadCatalogue(division, store)).not.toBeNull()
    }
    await forgetCatalogues(store)
    expect(await store.all()).toEqual([])
    expect(await loadCatalogue(7, store)).toBeNull()
    expect(await loadCatalogue(8, store)).toBeNull()
  })

  it('keeps nothing from a download that was still on its way at the logout', async () => {
    const store = keyed()
    await store.put({ division: 8, etag: '"t8"', checkedAt: 0, json: JSON.stringify(wire(8)) })
    const answers: ((r: Response) => void)[] = []
    const slow = (() => new Promise<Response>((resolve) => answers.push(resolve))) as typeof fetch
    // a new one for 7, and an unchanged one for 8 (whose kept record would be put back)
    const fresh = refreshCatalogue(7, { store, fetchImpl: slow })
    const unchanged = refreshCatalogue(8, { store, fetchImpl: slow })
    await vi.waitFor(() => expect(answers).toHaveLength(2))
    await forgetCatalogues(store)
    answers[0](new Response(JSON.stringify(wire()), { status: 200, headers: { ETag: '"t1"' } }))
    answers[1](new Response(null, { status: 304 }))
    expect(await fresh).toBe(false)
    expect(await unchanged).toBe(false)
    expect(await store.all()).toEqual([])
  })
})
