// The Dashboard's Table view: items with their stock in every warehouse and storage location,
// read from the local copy page by page.
import { dayStart, orgToday, parseProviderDate } from '../lib/dateTime.ts'
import { barcodeForms, classifyCode, shopOrderNumberOf } from '../lib/scan.ts'
import { chunks, dbGet, dbGetAll, dbJoins, inList, likeValue, MAX_LIMIT, type Params, type Row } from './db.ts'

/** The Table view first shows about this many items (spec §9); more load on demand. */
export const PAGE_SIZE = 500
/** Item ids per stock lookup, so the URL stays short (36 characters per GUID). */
const IDS_PER_CALL = 100

export type Activity = 'all' | 'active' | 'inactive'

/** The table's order: by code or description, `-` for descending. */
export type StockSort = 'code' | '-code' | 'description' | '-description'
export const STOCK_SORTS: readonly StockSort[] = ['code', '-code', 'description', '-description']

export interface StockFilters {
  search: string
  warehouse: string
  itemGroup: string
  activity: Activity
  sort: StockSort
}

export const NO_FILTERS: StockFilters = { search: '', warehouse: '', itemGroup: '', activity: 'active', sort: 'code' }

/** The store's `order` for a sort, on the items (`Code`) or on stock positions (`ItemCode`); the code breaks ties. */
export function orderOf(sort: StockSort, prefix = ''): string {
  const dir = sort.startsWith('-') ? 'desc' : 'asc'
  const column = `${prefix}${sort.endsWith('description') ? 'Description' : 'Code'}`
  return column.endsWith('Code') ? `${column}.${dir}` : `${column}.${dir},${prefix}Code.asc`
}

export interface StockLocation {
  warehouse: string
  location: string | null
  stock: number
}

export interface StockItem {
  id: string
  code: string
  description: string
  itemGroup: string
  unit: string
  endDate: string | null
  hasPicture: boolean
  total: number
  /** The stock in the warehouse the table is filtered on; null when it shows all warehouses. */
  warehouseStock: number | null
  locations: StockLocation[]
  /** The shop order number the search matched through, if any. */
  shopOrder: number | null
}

export interface StockPage {
  items: StockItem[]
  /** Offset of the next page in the base table, or null at the end. */
  next: number | null
}

const ITEM_FIELDS = 'ID,Code,Description,ItemGroup,ItemGroupCode,ItemGroupDescription,Unit,UnitDescription,EndDate,PictureThumbnailUrl'

/** Exact's "no picture" image means there is nothing to ask the server for. */
export function hasRealPicture(url: unknown): boolean {
  return typeof url === 'string' && url.length > 0 && !/placeholder/i.test(url)
}

/** Active: no end date, or one after the organization's today began, as the table's filter says. */
export function isActive(endDate: unknown, now: number = Date.now()): boolean {
  const ms = typeof endDate === 'string' ? parseProviderDate(endDate) : null
  return ms === null || ms > (dayStart(orgToday(now)) ?? 0)
}

/**
 * The filters for the items table: text over code and description (or the items the search
 * names otherwise: a shop order's, a barcode's), item group, active or not.
 */
/**
 * The `or` group of a search: the whole text in the code or description, or every word of it
 * in either, in any order ("kast besturing" finds "Besturingskast 24V"), or an item the text
 * names as a code (`named`: by barcode or shop order).
 */
export function searchTerms(text: string, named: readonly string[], code: string, description: string, id: string): string {
  const inCode = (w: string) => `${code}.ilike.${likeValue(w)}`
  const inDescription = (w: string) => `${description}.ilike.${likeValue(w)}`
  const terms = [inCode(text), inDescription(text)]
  // likeValue blanks out what a filter cannot take: a word of only those is no word
  const words = text.split(/\s+/).filter((w) => likeValue(w) !== '**')
  if (words.length > 1) terms.push(`and(${words.map((w) => `or(${inCode(w)},${inDescription(w)})`).join(',')})`)
  if (named.length) terms.push(`${id}.${inList(named)}`)
  return `(${terms.join(',')})`
}

export function itemParams(f: StockFilters, namedItems: readonly string[], now: number = Date.now(), prefix = ''): Params {
  const p: Params = []
  const col = (c: string) => prefix + c
  const text = f.search.trim()
  if (text) p.push(['or', searchTerms(text, namedItems, col('Code'), col('Description'), col('ID'))])
  if (f.itemGroup) p.push([col('ItemGroup'), `eq.${f.itemGroup}`])
  // the store compares a day with the provider's wall-clock dates: the organization's today
  const today = orgToday(now)
  if (f.activity === 'active') p.push(['or', `(${col('EndDate')}.is.null,${col('EndDate')}.gt.${today})`])
  if (f.activity === 'inactive') p.push([col('EndDate'), `lte.${today}`])
  return p
}

function text(v: unknown): string {
  return typeof v === 'string' ? v.trim() : v === null || v === undefined ? '' : String(v)
}

function num(v: unknown): number {
  const n = typeof v === 'number' ? v : Number(v)
  return Number.isFinite(n) ? n : 0
}

export interface ItemStock {
  total: number
  /** Stock per warehouse id (lower case). */
  byWarehouse: Map<string, number>
  locations: StockLocation[]
}

/**
 * Stock per item from storage-location positions and warehouse positions. The warehouse
 * positions give the totals where the item has them (a location's stock is part of its
 * warehouse's); the storage locations count only for an item with none.
 */
export function combineStock(slsp: readonly Row[], sp: readonly Row[]): Map<string, ItemStock> {
  interface Acc {
    total: number
    locations: StockLocation[]
    warehouses: Set<string>
    slspByWarehouse: Map<string, number>
    spByWarehouse: Map<string, number> | null
    spTotal: number
  }
  const out = new Map<string, Acc>()
  const get = (id: string) => {
    const key = id.toLowerCase()
    let e = out.get(key)
    if (!e) {
      e = { total: 0, locations: [], warehouses: new Set(), slspByWarehouse: new Map(), spByWarehouse: null, spTotal: 0 }
      out.set(key, e)
    }
    return e
  }
  const add = (m: Map<string, number>, warehouseId: unknown, stock: number) => {
    const key = text(warehouseId).toLowerCase()
    if (key) m.set(key, (m.get(key) ?? 0) + stock)
  }
  for (const r of slsp) {
    const stock = num(r.Stock)
    if (stock === 0) continue
    const e = get(text(r.Item))
    const warehouse = text(r.WarehouseCode) || text(r.WarehouseDescription)
    e.locations.push({ warehouse, location: text(r.StorageLocationCode) || null, stock })
    e.warehouses.add(warehouse)
    e.total += stock
    add(e.slspByWarehouse, r.Warehouse, stock)
  }
  for (const r of sp) {
    const stock = num(r.CurrentStock)
    const e = get(text(r.ItemId))
    e.spByWarehouse ??= new Map()
    e.spTotal += stock
    add(e.spByWarehouse, r.Warehouse, stock)
    const warehouse = text(r.WarehouseCode) || text(r.WarehouseDescription)
    // a warehouse without storage locations shows its own figure
    if (stock !== 0 && !e.warehouses.has(warehouse)) e.locations.push({ warehouse, location: null, stock })
  }
  const result = new Map<string, ItemStock>()
  for (const [id, e] of out) {
    e.locations.sort((a, b) => a.warehouse.localeCompare(b.warehouse, undefined, { numeric: true }) || (a.location ?? '').localeCompare(b.location ?? ''))
    const byWarehouse = e.spByWarehouse ?? e.slspByWarehouse
    result.set(id, { total: e.spByWarehouse ? e.spTotal : e.total, byWarehouse, locations: e.locations })
  }
  return result
}

async function stockFor(ids: readonly string[]): Promise<Map<string, ItemStock>> {
  const parts = chunks(ids, IDS_PER_CALL)
  const [slsp, sp] = await Promise.all([
    Promise.all(
      parts.map((p) =>
        dbGetAll('storageLocationStockPositions', [
          ['Item', inList(p)],
          ['select', 'Item,Stock,Warehouse,WarehouseCode,WarehouseDescription,StorageLocationCode'],
        ]),
      ),
    ),
    Promise.all(
      parts.map((p) =>
        dbGetAll('stockPositions', [
          ['ItemId', inList(p)],
          ['select', 'ItemId,CurrentStock,Warehouse,WarehouseCode,WarehouseDescription'],
        ]),
      ),
    ),
  ])
  return combineStock(slsp.flat(), sp.flat())
}

/** What a search names besides text in code and description: a shop order's items, a barcode's item. */
interface Named {
  /** The shop order number the search read as, if any. */
  number: number | null
  orderItems: string[]
  barcodeItems: string[]
}

/**
 * The items the search names as a code, read as every scan box reads it: "SO 24005" (or a
 * bare number) is a shop order's item, anything else may be an item's barcode (EAN).
 */
async function namedBySearch(search: string): Promise<Named> {
  const kind = classifyCode(search)
  if (kind.kind === 'empty') return { number: null, orderItems: [], barcodeItems: [] }
  const number = shopOrderNumberOf(search)
  const [orders, barcodes] = await Promise.all([
    number === null
      ? Promise.resolve([] as Row[])
      : dbGet('shopOrders', [
          ['ShopOrderNumber', `eq.${number}`],
          ['select', 'Item'],
          ['limit', '50'],
        ]),
    kind.kind === 'item'
      ? dbGet('items', [
          // the barcode in any of the forms one GTIN is written in
          ['Barcode', inList(barcodeForms(kind.code))],
          ['select', 'ID'],
          ['limit', '50'],
        ])
      : Promise.resolve([] as Row[]),
  ])
  const orderItems = orders.map((r) => text(r.Item)).filter(Boolean)
  return { number: orderItems.length ? number : null, orderItems, barcodeItems: barcodes.map((r) => text(r.ID)).filter(Boolean) }
}

function toItem(r: Row, stock: Map<string, ItemStock>, named: Named, warehouse: string, prefix = ''): StockItem {
  const id = text(r[prefix + 'ID'])
  const s = stock.get(id.toLowerCase())
  const group = text(r[prefix + 'ItemGroupCode'])
  const groupDesc = text(r[prefix + 'ItemGroupDescription'])
  return {
    id,
    code: text(r[prefix + 'Code']),
    description: text(r[prefix + 'Description']),
    itemGroup: group && groupDesc ? `${group} ${groupDesc}` : group || groupDesc,
    unit: text(r[prefix + 'UnitDescription']) || text(r[prefix + 'Unit']),
    endDate: text(r[prefix + 'EndDate']) || null,
    hasPicture: hasRealPicture(r[prefix + 'PictureThumbnailUrl']),
    total: s?.total ?? 0,
    warehouseStock: warehouse ? (s?.byWarehouse.get(warehouse.toLowerCase()) ?? 0) : null,
    locations: s?.locations ?? [],
    shopOrder: named.orderItems.some((x) => x.toLowerCase() === id.toLowerCase()) ? named.number : null,
  }
}

/**
 * One page of the Table view from `offset`. Without a warehouse the base is the items table;
 * with one it is that warehouse's stock positions joined to their items, where item group and
 * status are applied to the joined rows (the server filters base rows only).
 */
export async function fetchStockPage(f: StockFilters, offset: number, now: number = Date.now()): Promise<StockPage> {
  const named = await namedBySearch(f.search)
  const namedItems = [...named.orderItems, ...named.barcodeItems]
  if (!f.warehouse) {
    const rows = await dbGet('items', [
      ...itemParams(f, namedItems, now),
      ['select', ITEM_FIELDS],
      ['order', orderOf(f.sort ?? 'code')],
      ['limit', String(PAGE_SIZE)],
      ['offset', String(offset)],
    ])
    const stock = await stockFor(rows.map((r) => text(r.ID)))
    return { items: rows.map((r) => toItem(r, stock, named, '')), next: rows.length < PAGE_SIZE ? null : offset + PAGE_SIZE }
  }

  const base: Params = [['Warehouse', `eq.${f.warehouse}`]]
  const textSearch = f.search.trim()
  if (textSearch) base.push(['or', searchTerms(textSearch, namedItems, 'ItemCode', 'ItemDescription', 'ItemId')])
  const joins = [{ source: 'items', joinOn: ['ID'], joinOnSelf: ['ItemId'] }]
  const wanted: Row[] = []
  let next: number | null = offset
  // read on until a page's worth matched, or 10 reads, or the end
  for (let reads = 0; next !== null && wanted.length < PAGE_SIZE && reads < 10; reads++) {
    const rows: Row[] = await dbJoins('stockPositions', joins, [
      ...base,
      ['order', orderOf(f.sort ?? 'code', 'Item')],
      ['limit', String(MAX_LIMIT)],
      ['offset', String(next)],
    ])
    for (const r of rows) {
      if (!r['items.ID']) continue
      if (f.itemGroup && text(r['items.ItemGroup']).toLowerCase() !== f.itemGroup.toLowerCase()) continue
      if (f.activity !== 'all' && isActive(r['items.EndDate'], now) !== (f.activity === 'active')) continue
      wanted.push(r)
    }
    next = rows.length < MAX_LIMIT ? null : next + MAX_LIMIT
  }
  const stock = await stockFor(wanted.map((r) => text(r['items.ID'])))
  return { items: wanted.map((r) => toItem(r, stock, named, f.warehouse, 'items.')), next }
}
