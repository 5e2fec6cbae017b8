// The scanned item's stock as its card lists it: per storage location, plus the warehouses that
// keep the item without storage locations (only the warehouse's stock position knows those).
import type { LocationStock, WarehouseStock } from '../api/scan.ts'

export interface CardRow {
  key: string
  /** The storage location's ID; null for a warehouse's stock outside storage locations. */
  storageLocation: string | null
  locationCode: string | null
  locationDescription: string | null
  warehouseCode: string
  stock: number
}

const same = (a: string | null | undefined, b: string | null | undefined) => !!a && !!b && a.toLowerCase() === b.toLowerCase()

/**
 * Every storage location row (by location code), then each warehouse with stock that no location
 * row is of. The total is the warehouses' stock positions when there are any (as the Dashboard
 * counts), else the locations' sum.
 */
export function cardStock(
  locations: readonly LocationStock[] | undefined,
  warehouses: readonly WarehouseStock[] | undefined,
): { rows: CardRow[]; total: number } {
  const byLocation = [...(locations ?? [])].sort((a, b) => (a.StorageLocationCode ?? '').localeCompare(b.StorageLocationCode ?? ''))
  const rows: CardRow[] = byLocation.map((r) => ({
    key: r.ID,
    storageLocation: r.StorageLocation,
    locationCode: r.StorageLocationCode,
    locationDescription: r.StorageLocationDescription,
    warehouseCode: r.WarehouseCode ?? '',
    stock: r.Stock ?? 0,
  }))
  const withoutLocations = (warehouses ?? [])
    .filter((w) => (w.CurrentStock ?? 0) !== 0 && !byLocation.some((r) => same(r.Warehouse, w.Warehouse)))
    .sort((a, b) => (a.WarehouseCode ?? '').localeCompare(b.WarehouseCode ?? '', undefined, { numeric: true }))
  for (const w of withoutLocations) {
    rows.push({
      key: w.ID,
      storageLocation: null,
      locationCode: null,
      locationDescription: null,
      warehouseCode: w.WarehouseCode ?? w.WarehouseDescription ?? '',
      stock: w.CurrentStock ?? 0,
    })
  }
  const total = warehouses?.length ? warehouses.reduce((sum, w) => sum + (w.CurrentStock ?? 0), 0) : byLocation.reduce((sum, r) => sum + (r.Stock ?? 0), 0)
  return { rows, total }
}

/**
 * The stock an issue books from: the chosen storage location's, else (the default location) the
 * whole warehouse's. Null while the stock is not read yet, so nothing is warned about blindly.
 */
export function stockToIssueFrom(
  location: string,
  warehouse: string | null | undefined,
  locations: readonly LocationStock[] | undefined,
  warehouses: readonly WarehouseStock[] | undefined,
): number | null {
  if (location) {
    if (!locations) return null
    return locations.filter((r) => same(r.StorageLocation, location)).reduce((sum, r) => sum + (r.Stock ?? 0), 0)
  }
  if (!warehouse) return null
  const position = warehouses?.find((w) => same(w.Warehouse, warehouse))
  if (position) return position.CurrentStock ?? 0
  if (!locations || !warehouses) return null
  return locations.filter((r) => same(r.Warehouse, warehouse)).reduce((sum, r) => sum + (r.Stock ?? 0), 0)
}
