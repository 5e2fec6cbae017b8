// What the Materials screen reads from the local copy, in one answer of the server
// (`GET /materials/rows`): open shop orders, their material lines still to issue with what was
// issued to each (summed from the synced material issues) and what this server still has to send,
// open sales order lines, and the items and stock positions of everything in demand.
import { useQuery } from '@tanstack/react-query'
import { materialKeys, useDivision } from '../../api/queries.ts'
import { madeLines, materialLines, num, salesLines, shopOrderIndex, stockLines, str, type FlowLine } from '../../lib/shortage.ts'
import { call } from '../../api/contract.ts'
import type { Row } from '../../api/db.ts'

export interface MaterialItem {
  id: string
  code: string
  description: string
  itemGroup: string
  unit: string
}

export interface MaterialData {
  /** FI, MA, MS and SO lines (PO lines come from the live purchase read). */
  lines: FlowLine[]
  items: Map<string, MaterialItem>
}

/** What was issued to each material line, with what is on its way to Exact Online, by line id. */
export function issuedByPlan(plans: readonly Row[]): Map<string, number> {
  return new Map(plans.map((p) => [str(p.ID).toLowerCase(), num(p.IssuedQuantity) + num(p.QueuedQuantity)]))
}

export async function fetchMaterialData(): Promise<MaterialData> {
  // the document gives the local copy's rows as free-form objects
  const rows = await call('get', '/materials/rows', {})
  const plans = rows.plans as Row[]
  const shopOrders = rows.shopOrders as Row[]
  const items = new Map<string, MaterialItem>()
  for (const r of rows.items as Row[]) {
    const id = str(r.ID).toLowerCase()
    items.set(id, {
      id,
      code: str(r.Code),
      description: str(r.Description),
      itemGroup: str(r.ItemGroup).toLowerCase(),
      unit: str(r.UnitDescription) || str(r.Unit),
    })
  }
  const lines = [
    ...salesLines(rows.salesLines as Row[], new Map(Object.entries(rows.salesWarehouses))),
    ...madeLines(shopOrders),
    ...materialLines(plans, shopOrderIndex(shopOrders), issuedByPlan(plans)),
    ...stockLines(rows.stockPositions as Row[]),
  ]
  return { lines, items }
}

export function useMaterialData() {
  return useQuery({ queryKey: materialKeys.local(useDivision()), queryFn: fetchMaterialData, staleTime: 60_000 })
}
