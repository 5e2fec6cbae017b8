// Reads and writes of the Scanning screen: items by code or barcode, their stock per storage
// location, the open shop orders that need them, and the stock movements booked from a handheld.
// The Item page and the offline catalogue read items the same way, so this lives in api/.
import { queryOptions } from '@tanstack/react-query'
import { call, type BodyOf, type Schema } from './contract.ts'
import { scanKeys } from './queries.ts'
import { book } from './writes.ts'
import { orgToday } from '../lib/dateTime.ts'
import { codeOrBarcode, dbGet, inList } from './db.ts'
import type { TrackedNumbers } from '../lib/tracking.ts'
import { receiptBodies, type OpenLine } from '../lib/receipts.ts'

export interface ScannedItem {
  ID: string
  Code: string
  Description: string | null
  Barcode: string | null
  Unit: string | null
  PictureUrl: string | null
  /** Exact's "may be counted in fractions" (false for pieces); absent in an older copy. */
  IsFractionAllowedItem?: boolean | number | null
  /** Tracked by serial or batch number (Booleans, or 0/1); absent in an older copy. */
  IsSerialItem?: boolean | number | null
  IsBatchItem?: boolean | number | null
}

export interface LocationStock {
  ID: string
  Item: string
  Stock: number | null
  StorageLocation: string | null
  StorageLocationCode: string | null
  StorageLocationDescription: string | null
  Warehouse: string
  WarehouseCode: string | null
  WarehouseDescription: string | null
}

export interface MaterialPlan {
  ID: string
  ShopOrder: string
  Item: string
  ItemCode: string | null
  ItemDescription: string | null
  PlannedQuantity: number | null
  /** Issued in Exact: summed by the server from the synced material issues. */
  IssuedQuantity?: number | null
  /** Booked and still in the server's outbox, not yet in Exact. */
  QueuedQuantity?: number | null
  Unit?: string | null
  Type: number | null
  Status: number | null
  /** The item's tracking, repeated on the line (0/1). */
  IsSerial?: number | null
  IsBatch?: number | null
}

export interface ScanShopOrder {
  ID: string
  ShopOrderNumber: number
  Item: string
  ItemCode: string | null
  ItemDescription: string | null
  PlannedQuantity: number | null
  ProducedQuantity: number | null
  Status: number | null
  Warehouse: string | null
  WarehouseCode: string | null
}

/** Shop order statuses that still take materials and receipts: open and in process. */
export const ACTIVE_SHOP_ORDER = ['10', '20']
/** Material plan types: 1 a material, 2 a by-product. */
export const PLAN_MATERIAL = 1
export const PLAN_BY_PRODUCT = 2

/** The item whose code or barcode is exactly `code` (a code wins over a barcode). */
export async function findItem(code: string): Promise<ScannedItem | null> {
  const rows = await dbGet<ScannedItem>('items', [
    ['or', codeOrBarcode(code)],
    ['limit', '10'],
  ])
  return rows.find((r) => r.Code === code) ?? rows[0] ?? null
}

export const itemById = async (id: string) => (await dbGet<ScannedItem>('items', [['ID', `eq.${id}`]]))[0] ?? null

export const stockOfItem = (itemId: string) =>
  dbGet<LocationStock>('storageLocationStockPositions', [
    ['Item', `eq.${itemId}`],
    ['limit', '1000'],
  ])

/** An item the local copy expects at a storage location, with its stock there. */
export interface StockHere {
  Item: string
  ItemCode: string
  ItemDescription: string | null
  Stock: number | null
}

/** What the local copy expects at a storage location: its items with stock, by code. */
export const stockAtLocation = (locationId: string) =>
  dbGet<StockHere>('storageLocationStockPositions', [
    ['StorageLocation', `eq.${locationId}`],
    ['Stock', 'gt.0'],
    ['select', 'Item,ItemCode,ItemDescription,Stock'],
    ['order', 'ItemCode.asc'],
    ['limit', '500'],
  ])

/** The item's stock per warehouse, storage locations or not (as the Dashboard reads it). */
export interface WarehouseStock {
  ID: string
  ItemId: string
  CurrentStock: number | null
  Warehouse: string
  WarehouseCode: string | null
  WarehouseDescription: string | null
}

export const warehouseStockOfItem = (itemId: string) =>
  dbGet<WarehouseStock>('stockPositions', [
    ['ItemId', `eq.${itemId}`],
    ['select', 'ID,ItemId,CurrentStock,Warehouse,WarehouseCode,WarehouseDescription'],
    ['limit', '1000'],
  ])

// The Scanning screen and the Item page show the same stock of an item: one key each, written here.
// The id is undefined only while no item is scanned, when the caller keeps the query disabled.
export const itemStockQuery = (itemId: string | undefined) => queryOptions({ queryKey: scanKeys.stock(itemId), queryFn: () => stockOfItem(itemId!) })

export const itemWarehouseStockQuery = (itemId: string | undefined) =>
  queryOptions({ queryKey: scanKeys.warehouseStock(itemId), queryFn: () => warehouseStockOfItem(itemId!) })

/**
 * Open and in-process shop orders with a material plan line for the item, each with that line, by
 * order number. The server picks the open orders first, so an item's long history of finished
 * orders never hides them.
 */
export const ordersNeeding = async (itemId: string): Promise<{ order: ScanShopOrder; plan: MaterialPlan }[]> =>
  // the document gives the local copy's rows as free-form objects: typed by their tables' columns, as dbGet's rows are
  (await call('get', '/scanning/ordersNeeding', { query: { item: itemId } })) as unknown as { order: ScanShopOrder; plan: MaterialPlan }[]

export const shopOrderByNumber = async (n: number) => (await dbGet<ScanShopOrder>('shopOrders', [['ShopOrderNumber', `eq.${n}`]]))[0] ?? null

/** Open and in-process shop orders that make the item (to receive it as finished). */
export const ordersMaking = (itemId: string) =>
  dbGet<ScanShopOrder>('shopOrders', [
    ['Item', `eq.${itemId}`],
    ['Status', inList(ACTIVE_SHOP_ORDER)],
    ['order', 'ShopOrderNumber.asc'],
    ['limit', '100'],
  ])

export const byProductsOf = (shopOrderId: string) =>
  dbGet<MaterialPlan>('shopOrderMaterialPlans', [
    ['ShopOrder', `eq.${shopOrderId}`],
    ['Type', `eq.${PLAN_BY_PRODUCT}`],
  ])

/** The organization's today at midnight, as the provider's transaction dates are written. */
export function today(now: number = Date.now()): string {
  return `${orgToday(now)}T00:00:00`
}

/**
 * Each booking of a handheld may be made in a Wi-Fi dead spot: it then waits on the device
 * (`summary` names it in the list of those waiting) and is sent when the server answers again.
 */
interface Summarized {
  summary: string
  /** A tracked item's serial or batch numbers, in Exact Online's shape: they travel in the body, kept or sent. */
  numbers?: TrackedNumbers
}

/** A movement's quantity, dated the organization's today, at a storage location when one is chosen. */
const bookedToday = (b: {
  quantity: number
  location?: string | null
}): Pick<Schema<'MaterialIssue'> & Schema<'ShopOrderReceipt'>, 'Quantity' | 'TransactionDate' | 'StorageLocation'> => ({
  Quantity: b.quantity,
  TransactionDate: today(),
  ...(b.location ? { StorageLocation: b.location } : {}),
})

export const issueMaterial = (b: Summarized & { plan: string; quantity: number; location?: string | null }) =>
  book(
    '/exact/updateMaterialsIssues',
    {
      method: 'POST',
      body: { ShopOrderMaterialPlan: b.plan, ...bookedToday(b), ...b.numbers } satisfies BodyOf<'/exact/updateMaterialsIssues', 'post'>,
    },
    { keep: { kind: 'issue', summary: b.summary } },
  )

export const receiveShopOrder = (b: Summarized & { shopOrder: string; quantity: number; location?: string | null }) =>
  book(
    '/exact/createShopOrderReceipt',
    {
      method: 'POST',
      body: { ShopOrder: b.shopOrder, ...bookedToday(b), ...b.numbers } satisfies BodyOf<'/exact/createShopOrderReceipt', 'post'>,
    },
    { keep: { kind: 'receipt', summary: b.summary } },
  )

/**
 * Goods of an open purchase order line into stock, as the desk's Receive goods does (one receipt
 * of the order), at the storage location chosen if any.
 */
export const receivePurchaseLine = (b: Summarized & { line: OpenLine; quantity: number; location?: string | null }) =>
  book(
    '/exact/createGoodsReceipt',
    { method: 'POST', body: receiptBodies([{ line: b.line, quantity: b.quantity, location: b.location ?? '', numbers: b.numbers }])[0].body },
    { keep: { kind: 'goodsReceipt', summary: b.summary } },
  )

/** A by-product of a shop order (its material line of Type 2) into stock. */
export const receiveByProduct = (b: Summarized & { plan: string; quantity: number; location?: string | null }) =>
  book(
    '/exact/createByProductReceipt',
    {
      method: 'POST',
      body: { ShopOrderMaterialPlan: b.plan, ...bookedToday(b), ...b.numbers } satisfies BodyOf<'/exact/createByProductReceipt', 'post'>,
    },
    { keep: { kind: 'byProduct', summary: b.summary } },
  )

export interface TransferInput extends Summarized {
  item: string
  quantity: number
  warehouseFrom: string
  locationFrom?: string | null
  warehouseTo: string
  locationTo?: string | null
}

/** A transfer of one item, processed at once (the stock moves now). */
export const transferStock = (b: TransferInput) =>
  book(
    '/exact/createWarehouseTransfer',
    {
      method: 'POST',
      body: {
        WarehouseFrom: b.warehouseFrom,
        WarehouseTo: b.warehouseTo,
        process: true,
        WarehouseTransferLines: [
          {
            Item: b.item,
            Quantity: b.quantity,
            ...(b.locationFrom ? { StorageLocationFrom: b.locationFrom } : {}),
            ...(b.locationTo ? { StorageLocationTo: b.locationTo } : {}),
            ...b.numbers,
          },
        ],
      } satisfies BodyOf<'/exact/createWarehouseTransfer', 'post'>,
    },
    { keep: { kind: 'transfer', summary: b.summary } },
  )

/** A count of one item in one place, processed at once (the counted quantity becomes the stock). */
export const countStock = (b: Summarized & { item: string; warehouse: string; location?: string | null; quantity: number }) =>
  book(
    '/exact/createStockCount',
    {
      method: 'POST',
      body: {
        Warehouse: b.warehouse,
        process: true,
        StockCountLines: [{ Item: b.item, QuantityNew: b.quantity, ...(b.location ? { StorageLocation: b.location } : {}), ...b.numbers }],
      } satisfies BodyOf<'/exact/createStockCount', 'post'>,
    },
    { keep: { kind: 'count', summary: b.summary } },
  )
