// The scan catalogue: the organization's items, storage locations, stock and open material lines
// as of the server's last sync, kept in the browser so a scan still shows the item while the
// server cannot be reached (a Wi-Fi dead spot). The server sends it compact (one list per field,
// sorted positions as differences, places' GUIDs as base64 bytes); this module keeps that text in
// IndexedDB, one record per organization, and answers the Scanning screen's questions from it.
// Items, shop orders and material lines come without GUIDs: their IDs here are the names the
// server looks them up by when a booking carries one (`item:{code}`, `shopOrder:{number}`,
// `plan:{number}/{line}`), so a booking made from the catalogue is sent as made.
import type { QueryClient } from '@tanstack/react-query'
import { isNetworkFailure } from '../api/client.ts'
import type { Route, Schema } from '../api/contract.ts'
import type { LocationStock, MaterialPlan, ScannedItem, ScanShopOrder, WarehouseStock } from '../api/scan.ts'
import { getSyncStatus } from '../api/sync.ts'
import { barcodeForms, type LocationRef } from '../lib/scan.ts'
import type { WarehouseRef } from '../lib/places.ts'
import { isOfflineNow } from '../state/reachability.ts'
import { idbStore, type KeyedStore } from './idb.ts'

/**
 * The layout this module reads; another is ignored until the server sends this one again. 4: the
 * warehouses without storage locations (`warehouses.unlocated`).
 */
export const CATALOGUE_FORMAT = 5
// fetched, not `call`ed: its text is kept as sent, with its ETag
export const CATALOGUE_PATH = `/api/v1${'/scanning/catalogue' satisfies Route}`

/**
 * Stock rows by item then place: `item` is each row's item index less the row before's, `place`
 * the place's index less the row before's for the same item, else the place's index.
 */
type StockWire = Schema<'StockColumns'>
/** As the server sends it (its document's `ScanCatalogue`: GUIDs as base64url bytes, codes front-coded). */
export type CatalogueWire = Schema<'ScanCatalogue'>

const ITEM_REF = 'item:'
/** The name an item has in bookings made from the catalogue. */
export const itemRef = (code: string) => `${ITEM_REF}${code}`
/** The name a shop order has in bookings made from the catalogue. */
export const shopOrderRef = (number: number) => `shopOrder:${number}`
/** The name a material line has in bookings made from the catalogue. */
export const planRef = (number: number, line: number) => `plan:${number}/${line}`
/** Whether an ID is such a name (a record shown from the catalogue), not a GUID the server's reads take. */
export const isCatalogueRef = (id: string | null | undefined) => !!id && /^(item|shopOrder|plan):/.test(id)

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

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
/** Each ASCII character's base64url value, 255 for one that is none. */
const SIXTET = new Uint8Array(128).fill(255)
for (let i = 0; i < BASE64URL.length; i++) SIXTET[BASE64URL.charCodeAt(i)] = i
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, '0'))

/** A base64url column of GUIDs, answering each in the lower-case dashed form the API uses. */
class GuidColumn {
  private readonly bytes: Uint8Array
  readonly length: number

  constructor(text: string) {
    this.bytes = new Uint8Array(Math.floor((text.length * 6) / 8))
    let bits = 0
    let held = 0
    let out = 0
    for (let i = 0; i < text.length; i++) {
      const v = SIXTET[text.charCodeAt(i)] ?? 255
      if (v === 255) throw new Error('not base64url')
      held = ((held << 6) | v) & 0xffff
      bits += 6
      if (bits >= 8) {
        bits -= 8
        this.bytes[out++] = (held >> bits) & 255
      }
    }
    this.length = Math.floor(this.bytes.length / 16)
  }

  /** The GUID's 32 hex digits. */
  hex(i: number): string {
    let s = ''
    for (let k = i * 16; k < i * 16 + 16; k++) s += HEX[this.bytes[k]]
    return s
  }

  at(i: number): string {
    const h = this.hex(i)
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
  }
}

/** Stock rows as absolute indexes, with where each item's rows begin (`from[i]` to `from[i + 1]`). */
interface Stock {
  place: Int32Array
  stock: (number | null)[]
  from: Int32Array
}

function stockRows(w: StockWire, items: number): Stock {
  const place = new Int32Array(w.item.length)
  const from = new Int32Array(items + 1)
  let item = 0
  let at = 0
  for (let k = 0; k < w.item.length; k++) {
    if (w.item[k] > 0) {
      item += w.item[k]
      at = w.place[k]
    } else at += w.place[k]
    if (item >= items) throw new Error('stock of an unknown item')
    place[k] = at
    from[item + 1] = k + 1
  }
  // items without rows begin where the one before ends
  for (let i = 1; i <= items; i++) if (from[i] < from[i - 1]) from[i] = from[i - 1]
  return { place, stock: w.stock, from }
}

/** The running sums of `deltas`. */
function undelta(deltas: number[]): number[] {
  let at = 0
  return deltas.map((d) => (at += d))
}

/** An item the copy expects at a storage location, with its stock there. */
export interface ItemAtLocation {
  item: ScannedItem
  stock: number
}

/** The catalogue's answers, with the indexes a scan needs built once. */
export class ScanCatalogue {
  readonly asOf: number | null
  readonly division: number
  private readonly byCode = new Map<string, number>()
  private readonly byBarcode = new Map<string, number>()
  private readonly orderByNumber = new Map<number, number>()
  private readonly codes: string[]
  private readonly warehouseIds: GuidColumn
  private readonly locationIds: GuidColumn
  private readonly orderNumbers: number[]
  private readonly locationStock: Stock
  private readonly warehouseStock: Stock
  private readonly planItems: number[]
  private readonly w: CatalogueWire

  constructor(wire: CatalogueWire) {
    this.w = wire
    this.asOf = wire.asOf
    this.division = wire.division
    const { items } = wire
    this.warehouseIds = new GuidColumn(wire.warehouses.id)
    this.locationIds = new GuidColumn(wire.locations.id)
    let before = ''
    this.codes = items.code.rest.map((rest, i) => (before = before.slice(0, items.code.shared[i]) + rest))
    this.codes.forEach((code, i) => {
      if (!this.byCode.has(code)) this.byCode.set(code, i)
      const barcode = items.barcode[i]
      if (barcode && !this.byBarcode.has(barcode)) this.byBarcode.set(barcode, i)
    })
    this.orderNumbers = undelta(wire.orders.number)
    this.orderNumbers.forEach((n, i) => this.orderByNumber.set(n, i))
    const n = this.codes.length
    if (items.description.length !== n || items.unit.length !== n) throw new Error('the item columns differ in length')
    if (wire.plans.line.length !== wire.plans.item.length) throw new Error('the material line columns differ in length')
    this.locationStock = stockRows(wire.locationStock, n)
    this.warehouseStock = stockRows(wire.warehouseStock, n)
    this.planItems = undelta(wire.plans.item)
  }

  private item(i: number): ScannedItem {
    const { items } = this.w
    return {
      ID: itemRef(this.codes[i]),
      Code: this.codes[i],
      Description: items.description[i],
      Unit: items.units[items.unit[i]] ?? null,
      Barcode: items.barcode[i],
      PictureUrl: null,
      IsFractionAllowedItem: items.fractions[i] === '1',
      // a tracked item's booking names its numbers, offline too (Exact refuses it without them)
      IsSerialItem: items.tracking[i] === 's',
      IsBatchItem: items.tracking[i] === 'b',
    }
  }

  private warehouse(i: number | null) {
    if (i === null || i >= this.warehouseIds.length) return { id: null, code: null, description: null }
    return { id: this.warehouseIds.at(i), code: this.w.warehouses.code[i], description: this.w.warehouses.description[i] }
  }

  /**
   * The item whose code or barcode is exactly `code` (a barcode in any of its GTIN forms): a code
   * wins over a barcode (as `findItem`).
   */
  findItem(code: string): ScannedItem | null {
    let i = this.byCode.get(code)
    for (const form of barcodeForms(code)) i ??= this.byBarcode.get(form)
    return i === undefined ? null : this.item(i)
  }

  /** The item a record of this catalogue names (`itemRef`); null for anything else. */
  itemById(id: string): ScannedItem | null {
    const i = id.startsWith(ITEM_REF) ? this.byCode.get(id.slice(ITEM_REF.length)) : undefined
    return i === undefined ? null : this.item(i)
  }

  /** The warehouses that keep no storage locations: the pickers offer them as a whole. */
  unlocatedWarehouses(): WarehouseRef[] {
    return (this.w.warehouses.unlocated ?? [])
      .map((i) => {
        const wh = this.warehouse(i)
        return { ID: wh.id ?? '', Code: wh.code, Description: wh.description, UseStorageLocations: 0 }
      })
      .filter((w) => w.ID)
  }

  /** Every storage location known, for `classifyScan` and the location pickers. */
  locations(): LocationRef[] {
    const l = this.w.locations
    return l.code.map((Code, k) => {
      const wh = this.warehouse(l.warehouse[k])
      return { ID: this.locationIds.at(k), Code, Description: l.description[k], Warehouse: wh.id, WarehouseCode: wh.code, WarehouseDescription: wh.description }
    })
  }

  /** What this copy holds at a storage location (its ID): each item with stock there, by code. */
  stockAtLocation(locationId: string): ItemAtLocation[] {
    const want = locationId.toLowerCase().replace(/-/g, '')
    let at = -1
    for (let k = 0; k < this.locationIds.length && at < 0; k++) if (this.locationIds.hex(k) === want) at = k
    if (at < 0) return []
    const out: ItemAtLocation[] = []
    for (let i = 0; i < this.codes.length; i++) {
      for (const k of this.rowsOf(this.locationStock, i)) {
        if (this.locationStock.place[k] === at) out.push({ item: this.item(i), stock: this.locationStock.stock[k] ?? 0 })
      }
    }
    return out.sort((a, b) => a.item.Code.localeCompare(b.item.Code))
  }

  private rowsOf(s: Stock, i: number): number[] {
    const rows = []
    for (let k = s.from[i]; k < s.from[i + 1]; k++) rows.push(k)
    return rows
  }

  /** The stock per storage location of the item with this code, as `stockOfItem` reads it from the server. */
  stockOfItem(code: string): LocationStock[] {
    const i = this.byCode.get(code)
    if (i === undefined) return []
    const itemId = itemRef(code)
    const l = this.w.locations
    return this.rowsOf(this.locationStock, i).map((k) => {
      const at = this.locationStock.place[k]
      const locId = this.locationIds.at(at)
      const wh = this.warehouse(l.warehouse[at])
      return {
        ID: `${itemId}/${locId}`,
        Item: itemId,
        Stock: this.locationStock.stock[k] ?? 0,
        StorageLocation: locId,
        StorageLocationCode: l.code[at],
        StorageLocationDescription: l.description[at],
        Warehouse: wh.id ?? '',
        WarehouseCode: wh.code,
        WarehouseDescription: wh.description,
      }
    })
  }

  /** The stock per warehouse of the item with this code, as `warehouseStockOfItem` reads it. */
  warehouseStockOfItem(code: string): WarehouseStock[] {
    const i = this.byCode.get(code)
    if (i === undefined) return []
    const itemId = itemRef(code)
    const atLocations = this.rowsOf(this.locationStock, i)
    return this.rowsOf(this.warehouseStock, i).map((k) => {
      const w = this.warehouseStock.place[k]
      const wh = this.warehouse(w)
      // left out where it is the sum at the warehouse's locations: added in the server's order
      let stock = this.warehouseStock.stock[k]
      if (stock === null) {
        stock = 0
        for (const r of atLocations) if (this.w.locations.warehouse[this.locationStock.place[r]] === w) stock += this.locationStock.stock[r] ?? 0
      }
      return {
        ID: `${itemId}/${wh.id}`,
        ItemId: itemId,
        CurrentStock: stock,
        Warehouse: wh.id ?? '',
        WarehouseCode: wh.code,
        WarehouseDescription: wh.description,
      }
    })
  }

  private order(k: number): ScanShopOrder {
    const o = this.w.orders
    const wh = this.warehouse(o.warehouse[k])
    const made = o.item[k]
    const item = made === null ? null : this.item(made)
    return {
      ID: shopOrderRef(this.orderNumbers[k]),
      ShopOrderNumber: this.orderNumbers[k],
      Item: item?.ID ?? '',
      ItemCode: item?.Code ?? null,
      ItemDescription: item?.Description ?? null,
      PlannedQuantity: o.planned[k],
      ProducedQuantity: o.produced[k],
      Status: o.status[k],
      Warehouse: wh.id,
      WarehouseCode: wh.code,
    }
  }

  /** An open or in-process shop order by its number. */
  shopOrderByNumber(n: number): ScanShopOrder | null {
    const k = this.orderByNumber.get(n)
    return k === undefined ? null : this.order(k)
  }

  /** The open and in-process orders making the item with this code, by number (as `ordersMaking`). */
  ordersMaking(code: string): ScanShopOrder[] {
    const i = this.byCode.get(code)
    if (i === undefined) return []
    const found: ScanShopOrder[] = []
    this.w.orders.item.forEach((made, k) => {
      if (made === i) found.push(this.order(k))
    })
    return found
  }

  /** The open and in-process orders needing the item with this code, each with its material line (as `ordersNeeding`). */
  ordersNeeding(code: string): { order: ScanShopOrder; plan: MaterialPlan }[] {
    const i = this.byCode.get(code)
    if (i === undefined) return []
    const item = this.item(i)
    const p = this.w.plans
    const found: { order: ScanShopOrder; plan: MaterialPlan }[] = []
    // by item: the item's lines are next to each other
    for (let k = lowerBound(this.planItems, i); k < this.planItems.length && this.planItems[k] === i; k++) {
      const order = this.order(p.order[k])
      const plan: MaterialPlan = {
        ID: planRef(order.ShopOrderNumber, p.line[k]),
        ShopOrder: order.ID,
        Item: item.ID,
        ItemCode: item.Code,
        ItemDescription: item.Description,
        PlannedQuantity: p.planned[k],
        IssuedQuantity: p.issued[k],
        Type: 1,
        Status: null,
      }
      found.push({ order, plan })
    }
    return found
  }
}

/** The first position in the ascending `sorted` whose value is at least `v`. */
function lowerBound(sorted: number[], v: number): number {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (sorted[mid] < v) lo = mid + 1
    else hi = mid
  }
  return lo
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
  let catalogue: ScanCatalogue
  try {
    catalogue = new ScanCatalogue(wire)
  } catch {
    // not the layout its format says (a damaged record): as if none were kept, so it is fetched again
    return null
  }
  parsed.set(division, { etag: record.etag, json: record.json, catalogue })
  return catalogue
}

/**
 * Deletes every kept catalogue, and the parsed copies this page holds: a session's end (logout)
 * leaves no organization's items and stock on a shared handheld. Every one, not only the
 * session's organization: one switched away from is as readable, and none opens without a
 * session, which the device no longer keeps either.
 */
export async function forgetCatalogues(store?: KeyedStore<CatalogueRecord>): Promise<void> {
  forgotten++
  parsed.clear()
  await storeOf(store).clear()
}

/** How often `forgetCatalogues` ran: a download begun before keeps nothing (`refreshCatalogue`). */
let forgotten = 0

/**
 * Asks the server for the organization's catalogue, sending the kept one's ETag so an unchanged
 * one is not sent again (304). True when a new one was kept. Throws when the server cannot be
 * reached or refuses: the kept one stays. Keeps nothing when the session ended meanwhile: a
 * download of megabytes can outlast a logout, which must leave no catalogue behind.
 */
export async function refreshCatalogue(
  division: number,
  { store, fetchImpl = fetch }: { store?: KeyedStore<CatalogueRecord>; fetchImpl?: typeof fetch } = {},
): Promise<boolean> {
  const s = storeOf(store)
  const begun = forgotten
  const kept = await s.get(division).catch(() => undefined)
  const headers: Record<string, string> = { Accept: 'application/json' }
  if (kept?.etag) headers['If-None-Match'] = kept.etag
  const res = await fetchImpl(CATALOGUE_PATH, { headers, credentials: 'same-origin', cache: 'no-store' })
  if (res.status === 304 && kept) {
    if (forgotten === begun) await s.put({ ...kept, checkedAt: Date.now() })
    return false
  }
  if (!res.ok) throw new Error(`HTTP ${res.status}`)
  const json = await res.text()
  const wire = JSON.parse(json) as Pick<CatalogueWire, 'format' | 'division'>
  // a session switched to another organization meanwhile: keep it under its own
  if (wire.format !== CATALOGUE_FORMAT) throw new Error(`unknown catalogue format ${wire.format}`)
  if (forgotten !== begun) return false
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
 * `live()`, or the kept catalogue's answer when the server cannot be reached (or `keptOnly`: a
 * record shown from the catalogue, which the server's reads do not know by its name); `asOf` is
 * the catalogue's time when it answered, null for a live answer.
 */
export async function liveOrKept<T>(
  live: () => Promise<T>,
  kept: (c: ScanCatalogue) => T,
  catalogue: ScanCatalogue | null | undefined,
  { keptOnly = false }: { keptOnly?: boolean } = {},
): Promise<{ value: T; asOf: number | null }> {
  if (catalogue && (keptOnly || isOfflineNow())) return { value: kept(catalogue), asOf: catalogue.asOf }
  try {
    return { value: await live(), asOf: null }
  } catch (e) {
    if (catalogue && isNetworkFailure(e)) return { value: kept(catalogue), asOf: catalogue.asOf }
    throw e
  }
}
