// The Dashboard's filters live in the page's address, so a reload, a bookmark or a shared link
// shows the same table. Only what differs from the defaults is written; other parameters of the
// address (the organization's `division`) stay as they are.
import { NO_FILTERS, STOCK_SORTS, type Activity, type StockFilters } from '../api/stock.ts'

const KEYS = { search: 'q', warehouse: 'warehouse', itemGroup: 'group', activity: 'status', sort: 'sort' } as const
const ACTIVITIES: readonly Activity[] = ['all', 'active', 'inactive']

/** The filters an address names; anything absent or unknown is the default. */
export function filtersFromParams(params: URLSearchParams): StockFilters {
  const activity = params.get(KEYS.activity)
  return {
    search: params.get(KEYS.search) ?? NO_FILTERS.search,
    warehouse: params.get(KEYS.warehouse) ?? NO_FILTERS.warehouse,
    itemGroup: params.get(KEYS.itemGroup) ?? NO_FILTERS.itemGroup,
    activity: ACTIVITIES.find((a) => a === activity) ?? NO_FILTERS.activity,
    sort: STOCK_SORTS.find((x) => x === params.get(KEYS.sort)) ?? NO_FILTERS.sort,
  }
}

/** `params` with the filters written in (defaults left out), every other parameter kept. */
export function paramsWithFilters(params: URLSearchParams, f: StockFilters): URLSearchParams {
  const next = new URLSearchParams(params)
  for (const key of Object.keys(KEYS) as (keyof StockFilters)[]) {
    const value = f[key]
    if (value && value !== NO_FILTERS[key]) next.set(KEYS[key], value)
    else next.delete(KEYS[key])
  }
  return next
}
