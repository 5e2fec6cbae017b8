// Where an item's stock is, as the handheld's pickers offer it: a storage location, or a whole
// warehouse that keeps no storage locations (Exact's UseStorageLocations 0), booked without one.
// Exact refuses a storage location in such a warehouse, and a transfer within it, so no screen
// asks for one there.
import type { LocationRef } from './scan.ts'

/** A warehouse as the live list (`/exact/live/warehouses`) and the scan catalogue give it. */
export interface WarehouseRef {
  ID: string
  Code: string | null
  Description?: string | null
  /** 0 (or false): no storage locations. Absent in a copy read before the product read it. */
  UseStorageLocations?: number | boolean | null
}

const PREFIX = 'warehouse:'

/** Whether the warehouse is known to keep no storage locations; an unknown flag means it keeps them. */
export const withoutLocations = (w: WarehouseRef) => w.UseStorageLocations === 0 || w.UseStorageLocations === false

/** The IDs (lower case) of the warehouses without storage locations. */
export function unlocatedIds(warehouses: readonly WarehouseRef[] | undefined): Set<string> {
  return new Set((warehouses ?? []).filter(withoutLocations).map((w) => w.ID.toLowerCase()))
}

/** Whether a picker's value names a whole warehouse (see `warehousePlace`). */
export const isWarehousePlace = (id: string) => id.startsWith(PREFIX)

/** A picker entry for a warehouse without storage locations: its value names the warehouse. */
export function warehousePlace(w: WarehouseRef): LocationRef {
  const id = w.ID.toLowerCase()
  return { ID: `${PREFIX}${id}`, Code: '', Description: null, Warehouse: id, WarehouseCode: w.Code, WarehouseDescription: w.Description ?? null }
}

/** The storage location a picked place books at: none for a whole warehouse. */
export const locationOf = (place: LocationRef): string | null => (isWarehousePlace(place.ID) ? null : place.ID)

/**
 * The storage locations (by code), then the warehouses without storage locations (by code), as one list
 * for the pickers. A location that says it is in such a warehouse is left out: Exact would refuse it.
 */
export function placesOf(locations: readonly LocationRef[], warehouses: readonly WarehouseRef[] | undefined): LocationRef[] {
  const unlocated = unlocatedIds(warehouses)
  const located = locations
    .filter((l) => !l.Warehouse || !unlocated.has(l.Warehouse.toLowerCase()))
    .sort((a, b) => (a.Code ?? '').localeCompare(b.Code ?? '', undefined, { numeric: true }))
  const whole = (warehouses ?? [])
    .filter(withoutLocations)
    .sort((a, b) => (a.Code ?? '').localeCompare(b.Code ?? '', undefined, { numeric: true }))
    .map(warehousePlace)
  return [...located, ...whole]
}

/** Stock of an item per warehouse, as `stockPositions` rows give it. */
interface PositionRow {
  Warehouse: string
  CurrentStock: number | null
}

/**
 * The places the item can be moved from: the storage locations with stock (`withStock`, by ID),
 * and the warehouses without storage locations where its stock position is above 0.
 */
export function sourcesOf(places: readonly LocationRef[], withStock: ReadonlySet<string>, positions: readonly PositionRow[] | undefined): LocationRef[] {
  const held = new Set((positions ?? []).filter((p) => (p.CurrentStock ?? 0) > 0).map((p) => p.Warehouse.toLowerCase()))
  return places.filter((p) => (isWarehousePlace(p.ID) ? held.has((p.Warehouse ?? '').toLowerCase()) : withStock.has(p.ID)))
}

/**
 * The places an issue to a shop order can come from: those in the order's warehouse (Exact
 * refuses a storage location of another warehouse). A place whose warehouse is not known stays.
 */
export function placesInWarehouse(places: readonly LocationRef[], warehouse: string | null | undefined): LocationRef[] {
  if (!warehouse) return [...places]
  const w = warehouse.toLowerCase()
  return places.filter((p) => !p.Warehouse || p.Warehouse.toLowerCase() === w)
}
