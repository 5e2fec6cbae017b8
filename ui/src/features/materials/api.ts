// The Materials screen's projection, made by the server from the local copy
// (`GET /materials/shortages`): a page of the items in demand, shortest first, each with its
// figures and its lines, and how many items are in each state. At scale the browser could not
// make it itself in time (118,000 open material lines and 104,000 items took it 8 s).
import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { materialKeys, useDivision } from '../../api/queries.ts'
import { call, type Schema } from '../../api/contract.ts'
import type { BalanceLine, ItemProjection } from '../../lib/shortage.ts'

export interface MaterialItem {
  id: string
  code: string
  description: string
  itemGroup: string
  unit: string
}

/** Which items a page lists: short ones, those short or covered only by supply to come, or all. */
export type Show = 'short' | 'attention' | 'all'

export interface MaterialQuery {
  search: string
  warehouse: string
  itemGroup: string
  project: string
  show: Show
  limit: number
}

export interface MaterialRowData {
  projection: ItemProjection
  item: MaterialItem | undefined
}

export interface MaterialPage {
  counts: { short: number; expected: number; inStock: number }
  /** Items the show filter and the search leave (the page lists the first `rows.length`). */
  total: number
  rows: MaterialRowData[]
}

function toRow(s: Schema<'ItemShortage'>): MaterialRowData {
  const lines: BalanceLine[] = s.lines.map((l) => ({
    kind: l.kind,
    item: s.item,
    day: l.day ?? null,
    quantity: l.quantity,
    balance: l.balance,
    warehouse: l.warehouse,
    project: l.project,
    refId: l.refId,
    refNumber: l.refNumber,
    lineId: l.lineId ?? undefined,
  }))
  const projection: ItemProjection = {
    item: s.item,
    lines,
    free: s.free,
    demand: s.demand,
    supply: s.supply,
    firstShortDay: s.firstShortDay ?? null,
    firstShortBalance: s.firstShortBalance,
    lowest: s.lowest,
    endBalance: s.endBalance,
    availability: s.availability,
  }
  const item = s.info ? { id: s.item, code: s.info.code, description: s.info.description, itemGroup: s.info.itemGroup, unit: s.info.unit } : undefined
  return { projection, item }
}

export async function fetchMaterialPage(q: MaterialQuery): Promise<MaterialPage> {
  const page = await call('get', '/materials/shortages', {
    query: {
      show: q.show,
      limit: q.limit,
      // empty filters are left out: the server reads absent as "all"
      ...(q.search.trim() && { search: q.search.trim() }),
      ...(q.warehouse && { warehouse: q.warehouse }),
      ...(q.itemGroup && { itemGroup: q.itemGroup }),
      ...(q.project && { project: q.project }),
    },
  })
  return { counts: page.counts, total: page.total, rows: page.items.map(toRow) }
}

/** A page of the projection; while the next one (another filter, more rows) is read the last stays. */
export function useMaterialPage(q: MaterialQuery) {
  return useQuery({
    queryKey: materialKeys.shortages(useDivision(), q),
    queryFn: () => fetchMaterialPage(q),
    staleTime: 60_000,
    placeholderData: keepPreviousData,
  })
}
