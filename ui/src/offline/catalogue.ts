// The scan catalogue: the organization's items, storage locations, stock and open material lines
// as of the server's last sync, kept in the browser so a scan still shows the item while the
// server cannot be reached (a Wi-Fi dead spot). The server sends it as column tuples that refer
// to each other by position (small for a large organization); this module keeps that text in
// IndexedDB, one record per organization, and answers the Scanning screen's questions from it.
import type { QueryClient } from '@tanstack/react-query'
import { isNetworkFailure } from '../api/client.ts'
import type { LocationStock, MaterialPlan, ScannedItem, ScanShopOrder, WarehouseStock } from '../api/scanning.ts'
import { getSyncStatus } from '../api/sync.ts'
import type { LocationRef } from '../lib/scan.ts'
import { isOfflineNow } from '../state/reachability.ts'
import { idbStore, type KeyedStore } from './idb.ts'

/** The layout this module reads; another is ignored until the server sends this one again. */
export const CATALOGUE_FORMAT = 1
export const CATALOGUE_PATH = '/api/v1/scanning/catalogue'

type Id = string
/** As the server sends it: see `src/api/scan_catalogue.rs`. */
export interface CatalogueWire {
  format: number
  division: number
  /** The end of the server's last sync (epoch ms). */
  asOf: number | null
  /** [ID, Code, Description] */
  warehouses: [Id, string | null, string | null][]
  /** [ID, Code, Description, warehouse index] */
  locations: [Id, string, string | null, number | null][]
  /** [ID, Code, Description, Unit, Barcode, fractions allowed 0/1] */
  items: [Id, string, string | null, string | null, string | null, number][]
  /** [item index, location index, stock] */
  locationStock: [number, number, number][]
  /** [item index, warehouse index, stock] */
  warehouseStock: [number, number, number][]
  /** [ID, ShopOrderNumber, Status, warehouse index, made item index, PlannedQuantity, ProducedQuantity] */
  orders: [Id, number, number, number | null, number | null, number | null, number | null][]
  /** [ID, order index, item index, PlannedQuantity, IssuedQuantity] */
  plans: [Id, number, number, number | null, number | null][]
}

/** What IndexedDB keeps: the server's text as sent (cheap to store, parsed once when used). */
export interface CatalogueRecord {
  division: number
  etag: string | null
  /** When this browser last had it confirmed or fetched (epoch ms). */
  checkedAt: number
  json: string
}

let defaultStore: KeyedStore<CatalogueRecord> | null = null
function storeOf(store?: KeyedStore<CatalogueRecord>): KeyedStore<CatalogueRecord> {
  if (store) return store
  defaultStore ??= idbStore<CatalogueRecord>('catalogue')
  return defaultStore
}

/** The catalogue's answers, with the indexes a scan needs built once. */
export class ScanCatalogue {
  readonly asOf: number | null
  readonly division: number
  private readonly byCode = new Map<string, number>()
  private readonly byBarcode = new Map<string, number>()
  private readonly byId = new Map<string, number>()
  private readonly orderByNumber = new Map<number, number>()
  private readonly stockAt = new Map<number, number[]>()
  private readonly warehouseStockAt = new Map<number, number[]>()
  private readonly plansOf = new Map<number, number[]>()
  private readonly w: CatalogueWire

  constructor(wire: CatalogueWire) {
    this.w = wire
    this.asOf = wire.asOf
    this.division = wire.division
    wire.items.forEach(([id, code, , , barcode], i) => {
      if (!this.byCode.has(code)) this.byCode.set(code, i)
      if (barcode && !this.byBarcode.has(barcode)) this.byBarcode.set(barcode, i)
      this.byId.set(id.toLowerCase(), i)
    })
    wire.orders.forEach((o, i) => this.orderByNumber.set(o[1], i))
    const push = (m: Map<number, number[]>, k: number, v: number) => {
      const list = m.get(k)
      if (list) list.push(v)
      else m.set(k, [v])
    }
    wire.locationStock.forEach((s, i) => push(this.stockAt, s[0], i))
    wire.warehouseStock.forEach((s, i) => push(this.warehouseStockAt, s[0], i))
    wire.plans.forEach((p, i) => push(this.plansOf, p[2], i))
  }

  private item(i: number): ScannedItem {
    const [ID, Code, Description, Unit, Barcode, fractions] = this.w.items[i]
    return { ID, Code, Description, Unit, Barcode, PictureUrl: null, IsFractionAllowedItem: fractions === 1 }
  }

  private index(id: string): number | undefined {
    return this.byId.get(id.toLowerCase())
  }

  private warehouse(i: number | null) {
    const w = i === null ? undefined : this.w.warehouses[i]
    return { id: w?.[0] ?? null, code: w?.[1] ?? null, description: w?.[2] ?? null }
  }

  /** The item whose code or barcode is exactly `code`: a code wins over a barcode (as `findItem`). */
  findItem(code: string): ScannedItem | null {
    const i = this.byCode.get(code) ?? this.byBarcode.get(code)
    return i === undefined ? null : this.item(i)
  }

  itemById(id: string): ScannedItem | null {
    const i = this.index(id)
    return i === undefined ? null : this.item(i)
  }

  /** Every storage location known, for `classifyScan` and the location pickers. */
  locations(): LocationRef[] {
    return this.w.locations.map(([ID, Code, Description, w]) => {
      const wh = this.warehouse(w)
      return { ID, Code, Description, Warehouse: wh.id, WarehouseCode: wh.code, WarehouseDescription: wh.description }
    })
  }

  /** The item's stock per storage location, as `stockOfItem` reads it from the server. */
  stockOfItem(id: string): LocationStock[] {
    const i = this.index(id)
    if (i === undefined) return []
    return (this.stockAt.get(i) ?? []).map((k) => {
      const [, l, stock] = this.w.locationStock[k]
      const [locId, code, description, w] = this.w.locations[l]
      const wh = this.warehouse(w)
      return {
        ID: `${this.w.items[i][0]}/${locId}`,
        Item: this.w.items[i][0],
        Stock: stock,
        StorageLocation: locId,
        StorageLocationCode: code,
        StorageLocationDescription: description,
        Warehouse: wh.id ?? '',
        WarehouseCode: wh.code,
        WarehouseDescription: wh.description,
      }
    })
  }

  /** The item's stock per warehouse, as `warehouseStockOfItem` reads it. */
  warehouseStockOfItem(id: string): WarehouseStock[] {
    const i = this.index(id)
    if (i === undefined) return []
    return (this.warehouseStockAt.get(i) ?? []).map((k) => {
      const [, w, stock] = this.w.warehouseStock[k]
      const wh = this.warehouse(w)
      return {
        ID: `${this.w.items[i][0]}/${wh.id}`,
        ItemId: this.w.items[i][0],
        CurrentStock: stock,
        Warehouse: wh.id ?? '',
        WarehouseCode: wh.code,
        WarehouseDescription: wh.description,
      }
    })
  }

  private order(k: number): ScanShopOrder {
    const [ID, ShopOrderNumber, Status, w, made, PlannedQuantity, ProducedQuantity] = this.w.orders[k]
    const wh = this.warehouse(w)
    const item = made === null ? undefined : this.w.items[made]
    return {
      ID,
      ShopOrderNumber,
      Item: item?.[0] ?? '',
      ItemCode: item?.[1] ?? null,
      ItemDescription: item?.[2] ?? null,
      PlannedQuantity,
      ProducedQuantity,
      Status,
      Warehouse: wh.id,
      WarehouseCode: wh.code,
    }
  }

  /** An open or in-process shop order by its number. */
  shopOrderByNumber(n: number): ScanShopOrder | null {
    const k = this.orderByNumber.get(n)
    return k === undefined ? null : this.order(k)
  }

  /** The open and in-process orders needing the item, each with its material line (as `ordersNeeding`). */
  ordersNeeding(id: string): { order: ScanShopOrder; plan: MaterialPlan }[] {
    const i = this.index(id)
    if (i === undefined) return []
    const [itemId, code, description] = this.w.items[i]
    return (this.plansOf.get(i) ?? []).map((k) => {
      const [ID, o, , PlannedQuantity, IssuedQuantity] = this.w.plans[k]
      const order = this.order(o)
      const plan: MaterialPlan = {
        ID,
        ShopOrder: order.ID,
        Item: itemId,
        ItemCode: code,
        ItemDescription: description,
        PlannedQuantity,
        IssuedQuantity,
        Type: 1,
        Status: null,
      }
      return { order, plan }
    })
  }
}

/** Parsed catalogues by organization, so a scan does not parse megabytes again. */
const parsed = new Map<number, { etag: string | null; json: string; catalogue: ScanCatalogue }>()

/** The organization's kept catalogue, or null when this browser has none (or an older layout). */
export async function loadCatalogue(division: number, store?: KeyedStore<CatalogueRecord>): Promise<ScanCatalogue | null> {
  const record = await storeOf(store).get(division)
  if (!record) return null
  const known = parsed.get(division)
  // the same tag is the same text: no need to compare megabytes
  if (known && (record.etag ? known.etag === record.etag : known.json === record.json)) return known.catalogue
  let wire: CatalogueWire
  try {
    wire = JSON.parse(record.json) as CatalogueWire
  } catch {
    return null
  }
  if (wire.format !== CATALOGUE_FORMAT || wire.division !== division) return null
  const catalogue = new ScanCatalogue(wire)
  parsed.set(division, { etag: record.etag, json: record.json, catalogue })
  return catalogue
}

/**
 * Asks the server for the organization's catalogue, sending the kept one's ETag so an unchanged
 * one is not sent again (304). True when a new one was kept. Throws when the server cannot be
 * reached or refuses: the kept one stays.
 */
export async function refreshCatalogue(
  division: number,
  { store, fetchImpl = fetch }: { store?: KeyedStore<CatalogueRecord>; fetchImpl?: typeof fetch } = {},
): Promise<boolean> {
  const s = storeOf(store)
  const kept = await s.get(division).catch(() => undefined)
  const headers: Record<string, string> = { Accept: 'application/json' }
  if (kept?.etag) headers['If-None-Match'] = kept.etag
  const res = await fetchImpl(CATALOGUE_PATH, { headers, credentials: 'same-origin', cache: 'no-store' })
  if (res.status === 304 && kept) {
    await s.put({ ...kept, checkedAt: Date.now() })
    return false
  }
  if (!res.ok) throw new Error(`HTTP ${res.status}`)
  const json = await res.text()
  const wire = JSON.parse(json) as Pick<CatalogueWire, 'format' | 'division'>
  // a session switched to another organization meanwhile: keep it under its own
  if (wire.format !== CATALOGUE_FORMAT) throw new Error(`unknown catalogue format ${wire.format}`)
  await s.put({ division: wire.division, etag: res.headers.get('ETag'), checkedAt: Date.now(), json })
  return true
}

/** The Scanning screen's query of the kept catalogue (null when none is kept). */
export const catalogueKey = (division: number) => ['scan', 'catalogue', division] as const

/** Asks the server for a newer catalogue while it can be reached, then answers the kept one. */
export async function freshCatalogue(division: number): Promise<ScanCatalogue | null> {
  if (!isOfflineNow()) {
    // out of reach or refused: the kept one is what there is
    await refreshCatalogue(division).catch(() => false)
  }
  return loadCatalogue(division)
}

/**
 * Told each time a table of a sync has finished: when the whole sync is over, a kept catalogue
 * is brought up to date (an open Scanning screen reads it again), so a handheld that walks into a
 * dead spot later has the latest copy.
 */
export async function afterSyncTable(
  queryClient: QueryClient,
  division: number,
  { store, fetchImpl, status = getSyncStatus }: { store?: KeyedStore<CatalogueRecord>; fetchImpl?: typeof fetch; status?: typeof getSyncStatus } = {},
): Promise<void> {
  try {
    // only a device that scans keeps one: a desktop's sync downloads no catalogue
    if (!(await storeOf(store).get(division))) return
    if ((await status()).running) return
    if (await refreshCatalogue(division, { store, fetchImpl })) await queryClient.invalidateQueries({ queryKey: catalogueKey(division) })
  } catch {
    // the next sync or the next opening of Scanning tries again
  }
}

/**
 * `live()`, or the kept catalogue's answer when the server cannot be reached; `asOf` is the
 * catalogue's time when it answered, null for a live answer.
 */
export async function liveOrKept<T>(
  live: () => Promise<T>,
  kept: (c: ScanCatalogue) => T,
  catalogue: ScanCatalogue | null | undefined,
): Promise<{ value: T; asOf: number | null }> {
  if (catalogue && isOfflineNow()) return { value: kept(catalogue), asOf: catalogue.asOf }
  try {
    return { value: await live(), asOf: null }
  } catch (e) {
    if (catalogue && isNetworkFailure(e)) return { value: kept(catalogue), asOf: catalogue.asOf }
    throw e
  }
}
