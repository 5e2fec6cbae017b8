// Warehouse and storage-location transfers: where stock can come from, what may be sent, and
// the recent transfers as the provider lists them.
import type { MessageKey } from '../../i18n/index.ts'
import type { BodyOf } from '../../api/contract.ts'
import type { Row } from '../../api/db.ts'
import { parseProviderDate } from '../../lib/dateTime.ts'
import { fitsUnit, parseQuantity } from '../../lib/quantity.ts'
import type { WarehouseRef } from '../../lib/places.ts'
import type { TrackedNumbers } from '../../lib/tracking.ts'

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : v === null || v === undefined ? '' : String(v))
const num = (v: unknown) => {
  const n = typeof v === 'number' ? v : Number(v)
  return Number.isFinite(n) ? n : 0
}

export interface Place {
  /** The storage location's ID; '' for a whole warehouse that keeps no storage locations. */
  location: string
  locationCode: string
  warehouse: string
  warehouseCode: string
}

export interface FromPlace extends Place {
  stock: number
}

/** The item's storage locations that hold stock (storageLocationStockPositions rows). */
export function fromPlaces(rows: readonly Row[]): FromPlace[] {
  return rows
    .filter((r) => num(r.Stock) > 0 && text(r.StorageLocation))
    .map((r) => ({
      location: text(r.StorageLocation).toLowerCase(),
      locationCode: text(r.StorageLocationCode),
      warehouse: text(r.Warehouse).toLowerCase(),
      warehouseCode: text(r.WarehouseCode),
      stock: num(r.Stock),
    }))
    .sort((a, b) => a.warehouseCode.localeCompare(b.warehouseCode, undefined, { numeric: true }) || a.locationCode.localeCompare(b.locationCode))
}

/** A warehouse as the live list gives it (one type with the handheld's pickers). */
export type WarehouseRow = WarehouseRef

/** The warehouses without storage locations; an unknown flag (an older copy) means it keeps them. */
export const unlocatedWarehouses = (warehouses: readonly WarehouseRow[] | undefined) =>
  (warehouses ?? []).filter((w) => w.UseStorageLocations === 0 || w.UseStorageLocations === false)

/** A whole warehouse as a place to move to or from (it has no storage locations). */
export const warehousePlace = (w: WarehouseRow): Place => ({ location: '', locationCode: '', warehouse: w.ID.toLowerCase(), warehouseCode: text(w.Code) })

/**
 * The item's stock in warehouses without storage locations (stockPositions rows), as places to
 * move it from: only the warehouse's stock position knows it.
 */
export function warehouseFromPlaces(positions: readonly Row[], warehouses: readonly WarehouseRow[] | undefined): FromPlace[] {
  const whole = new Map(unlocatedWarehouses(warehouses).map((w) => [w.ID.toLowerCase(), w]))
  return positions
    .filter((r) => num(r.CurrentStock) > 0 && whole.has(text(r.Warehouse).toLowerCase()))
    .map((r) => ({ ...warehousePlace(whole.get(text(r.Warehouse).toLowerCase())!), stock: num(r.CurrentStock) }))
    .sort((a, b) => a.warehouseCode.localeCompare(b.warehouseCode, undefined, { numeric: true }))
}

/** The place's name in lists and summaries: its location code, or its warehouse's code when it has none. */
export const placeName = (p: Place) => p.locationCode || p.warehouseCode

/**
 * Why a transfer cannot be sent, or null: quantity above 0, whole for an item Exact counts in
 * whole units (`fractions` false), within the stock at the source, to another place.
 */
export function transferError(typed: string, from: FromPlace | undefined, to: Place | undefined, fractions = true): MessageKey | null {
  if (!from) return 'transfers.error.noFrom'
  if (!to) return 'transfers.error.noTo'
  if (from.warehouse === to.warehouse && from.location === to.location) return 'transfers.error.sameLocation'
  const n = parseQuantity(typed)
  if (n === null) return 'transfers.error.notNumber'
  if (n <= 0) return 'transfers.error.notPositive'
  if (!fitsUnit(n, fractions)) return 'transfers.error.notWhole'
  if (n > from.stock + 1e-9) return 'transfers.error.moreThanStock'
  return null
}

/**
 * A createWarehouseTransfer body. `Description` is one of the header fields the server passes on
 * to the provider as sent, which its document does not list.
 */
export type TransferBody = BodyOf<'/exact/createWarehouseTransfer', 'post'> & { Description?: string }

/** The createWarehouseTransfer body; `process` books it at once (the spec's process-transfer call). */
export function transferBody(item: string, from: Place, to: Place, quantity: number, description: string, numbers: TrackedNumbers = {}): TransferBody {
  return {
    WarehouseFrom: from.warehouse,
    WarehouseTo: to.warehouse,
    Description: description,
    process: true,
    // a warehouse without storage locations takes none (Exact refuses one there)
    WarehouseTransferLines: [
      {
        Item: item,
        Quantity: quantity,
        ...(from.location ? { StorageLocationFrom: from.location } : {}),
        ...(to.location ? { StorageLocationTo: to.location } : {}),
        ...numbers,
      },
    ],
  }
}

export interface RecentLine {
  itemCode: string
  itemDescription: string
  quantity: number
  from: string
  to: string
}

export interface RecentTransfer {
  id: string
  number: string
  date: number | null
  /** 50 is processed; anything else is still a draft. */
  processed: boolean
  from: string
  to: string
  by: string
  description: string
  lines: RecentLine[]
}

export function toRecent(headers: readonly Row[], lines: readonly Row[]): RecentTransfer[] {
  const byId = new Map<string, RecentLine[]>()
  for (const l of lines) {
    const id = text(l.TransferID).toLowerCase()
    byId.set(id, [
      ...(byId.get(id) ?? []),
      {
        itemCode: text(l.ItemCode),
        itemDescription: text(l.ItemDescription),
        quantity: num(l.Quantity),
        from: text(l.StorageLocationFromCode),
        to: text(l.StorageLocationToCode),
      },
    ])
  }
  return headers
    .map((h) => ({
      id: text(h.TransferID),
      number: text(h.TransferNumber),
      date: parseProviderDate(h.TransferDate) ?? parseProviderDate(h.EntryDate),
      processed: num(h.Status) === 50,
      from: text(h.WarehouseFromCode),
      to: text(h.WarehouseToCode),
      by: text(h.CreatorFullName),
      description: text(h.Description),
      lines: byId.get(text(h.TransferID).toLowerCase()) ?? [],
    }))
    .sort((a, b) => (b.date ?? 0) - (a.date ?? 0) || Number(b.number) - Number(a.number))
}
