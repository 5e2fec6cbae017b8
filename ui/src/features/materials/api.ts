// What the Materials screen reads: open shop orders, their material plans, open sales order
// lines (all from the local copy), the stock positions and items of the materials in demand,
// and the quantities already issued on partly issued plans (live, as the local copy has none).
import { useQuery } from '@tanstack/react-query'
import { exactKeys, materialKeys, useDivision } from '../../api/queries.ts'
import {
  madeLines,
  materialLines,
  OPEN_MATERIAL_PLAN,
  OPEN_SALES_LINE,
  OPEN_SHOP_ORDER,
  num,
  salesLines,
  shopOrderIndex,
  stockLines,
  str,
  type FlowLine,
  type ShopOrderInfo,
} from '../../lib/shortage.ts'
import { chunks, dbGetAll, inList, type Row } from '../../api/db.ts'
import { readDirectUrl } from '../../api/exactDirect.ts'

/** Ids per `in.(…)` list, so a URL stays short (36 characters per GUID). */
const IDS_PER_CALL = 100
/** Reads running at once against the local server. */
const PARALLEL = 4
/** Local copy pages per table (1000 rows each). */
const MAX_PAGES = 300

/** Exact Online's code for a partly issued material plan. */
const PARTIAL_PLAN = 25

export interface MaterialItem {
  id: string
  code: string
  description: string
  itemGroup: string
  unit: string
}

export interface MaterialData {
  /** FI, MA and SO lines (MS lines need the issued quantities, PO lines the live purchase read). */
  lines: FlowLine[]
  /** Open material plans and their shop orders, made into MS lines once issued quantities are known. */
  plans: Row[]
  shopOrders: Map<string, ShopOrderInfo>
  /** Some plans are partly issued: what was issued is read live. */
  hasPartial: boolean
  items: Map<string, MaterialItem>
}

/** `work` over `list` with at most `n` running at once, results in order. */
async function inBatches<T, R>(list: readonly T[], n: number, work: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = Array.from({ length: list.length })
  let next = 0
  const runners = Array.from({ length: Math.min(n, list.length) }, async () => {
    while (next < list.length) {
      const i = next++
      out[i] = await work(list[i])
    }
  })
  await Promise.all(runners)
  return out
}

async function byIds(table: string, column: string, ids: readonly string[], select: string): Promise<Row[]> {
  const parts = await inBatches(chunks(ids, IDS_PER_CALL), PARALLEL, (part) =>
    dbGetAll(table, [[column, inList(part)], ['select', select]], MAX_PAGES),
  )
  return parts.flat()
}

/** Issued quantity by plan id of the partly issued plans (live: the local copy has no issued quantities). */
export async function fetchIssuedQuantities(): Promise<{ byPlan: Map<string, number>; asOf: number | null }> {
  const { rows, asOf } = await readDirectUrl(`manufacturing/ShopOrderMaterialPlanDetails?$filter=Status eq ${PARTIAL_PLAN}&$select=ID,IssuedQuantity`)
  return { byPlan: new Map(rows.map((r) => [str(r.ID).toLowerCase(), num(r.IssuedQuantity)])), asOf }
}

export async function fetchMaterialData(): Promise<MaterialData> {
  const [shopOrders, plans, sales] = await Promise.all([
    dbGetAll(
      'shopOrders',
      [
        ['Status', `in.(${OPEN_SHOP_ORDER.join(',')})`],
        ['select', 'ID,ShopOrderNumber,Status,Item,PlannedQuantity,ProducedQuantity,PlannedDate,Warehouse,Project'],
      ],
      MAX_PAGES,
    ),
    dbGetAll(
      'shopOrderMaterialPlans',
      [
        ['Status', `in.(${OPEN_MATERIAL_PLAN.join(',')})`],
        ['select', 'ID,ShopOrder,Item,PlannedQuantity,PlannedDate,Status,Type'],
      ],
      MAX_PAGES,
    ),
    dbGetAll(
      'salesOrderLines',
      [
        ['Status', `in.(${OPEN_SALES_LINE.join(',')})`],
        ['select', 'ID,OrderID,OrderNumber,Item,Quantity,QuantityDelivered,DeliveryDate,Status,Project'],
      ],
      MAX_PAGES,
    ),
  ])
  const index = shopOrderIndex(shopOrders)

  const orderIds = [...new Set(sales.map((r) => str(r.OrderID)).filter(Boolean))]
  const headers = await byIds('salesOrderHeaders', 'OrderID', orderIds, 'OrderID,WarehouseID')
  const headerWarehouse = new Map(headers.map((h) => [str(h.OrderID).toLowerCase(), str(h.WarehouseID).toLowerCase()]))

  // nothing issued yet counted: every material that may still be needed
  const so = salesLines(sales, headerWarehouse)
  const demand = [...materialLines(plans, index, new Map()), ...so]
  const itemIds = [...new Set(demand.map((l) => l.item))]
  const [items, positions] = await Promise.all([
    byIds('items', 'ID', itemIds, 'ID,Code,Description,ItemGroup,Unit,UnitDescription'),
    byIds('stockPositions', 'ItemId', itemIds, 'ItemId,Warehouse,WarehouseCode,FreeStock,CurrentStock'),
  ])
  const itemMap = new Map<string, MaterialItem>()
  for (const r of items) {
    const id = str(r.ID).toLowerCase()
    itemMap.set(id, {
      id,
      code: str(r.Code),
      description: str(r.Description),
      itemGroup: str(r.ItemGroup).toLowerCase(),
      unit: str(r.UnitDescription) || str(r.Unit),
    })
  }
  return {
    lines: [...so, ...madeLines(shopOrders), ...stockLines(positions)],
    plans,
    shopOrders: index,
    hasPartial: plans.some((p) => num(p.Status) === PARTIAL_PLAN),
    items: itemMap,
  }
}

export function useMaterialData() {
  return useQuery({ queryKey: materialKeys.local(useDivision()), queryFn: fetchMaterialData, staleTime: 60_000 })
}

export function useIssuedQuantities(enabled: boolean) {
  return useQuery({ queryKey: exactKeys.issuedQuantities(useDivision()), queryFn: fetchIssuedQuantities, enabled, staleTime: 5 * 60_000 })
}
