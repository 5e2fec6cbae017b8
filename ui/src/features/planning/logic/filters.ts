// Which shop orders the planning shows: the filters (warehouse, selection code, project, item
// group) and the search on shop order number and Your Ref.
import { classifyCode } from '../../../lib/scan.ts'

export interface PlanningFilters {
  warehouse: string
  selectionCode: string
  project: string
  itemGroup: string
  search: string
}

export const NO_FILTERS: PlanningFilters = { warehouse: '', selectionCode: '', project: '', itemGroup: '', search: '' }

export interface FilterableOrder {
  ShopOrderNumber: number
  YourRef: string | null
  Warehouse: string | null
  SelectionCode: string | null
  Project: string | null
  Item: string
}

function sameId(a: string | null, b: string): boolean {
  return !!a && a.toLowerCase() === b.toLowerCase()
}

/**
 * Orders passing every set filter. `itemsInGroup` holds the item ids of the chosen item group
 * (shop orders carry no item group of their own).
 */
export function filterOrders<T extends FilterableOrder>(orders: readonly T[], f: PlanningFilters, itemsInGroup?: ReadonlySet<string>): T[] {
  // "SO 24005" off the order's papers reads as its number, as in every scan box
  const code = classifyCode(f.search)
  const q = code.kind === 'shopOrder' ? String(code.number) : f.search.trim().toLowerCase()
  return orders.filter(
    (o) =>
      (!f.warehouse || sameId(o.Warehouse, f.warehouse)) &&
      (!f.selectionCode || sameId(o.SelectionCode, f.selectionCode)) &&
      (!f.project || sameId(o.Project, f.project)) &&
      (!f.itemGroup || !itemsInGroup || itemsInGroup.has(o.Item.toLowerCase())) &&
      (!q || String(o.ShopOrderNumber).includes(q) || (o.YourRef ?? '').toLowerCase().includes(q)),
  )
}

export function activeFilterCount(f: PlanningFilters): number {
  return [f.warehouse, f.selectionCode, f.project, f.itemGroup, f.search.trim()].filter(Boolean).length
}
