// Open purchase order lines, read live from Exact Online (purchase orders are not synced):
// the open orders first, then their lines, a few dozen orders per read so each URL stays short.
import { useQuery } from '@tanstack/react-query'
import { exactKeys, useDivision } from './queries.ts'
import { toPurchaseLines, type PurchaseLine } from '../lib/purchases.ts'
import { readDirectUrl } from './exactDirect.ts'
import { joinLive, oldestAsOf, type LiveRows } from './live.ts'

const HEADER_FIELDS = 'PurchaseOrderID,OrderNumber,OrderDate,ReceiptDate,ReceiptStatus,Supplier,SupplierCode,SupplierName,Warehouse,WarehouseCode'
const LINE_FIELDS =
  'ID,PurchaseOrderID,LineNumber,Item,ItemCode,ItemDescription,Description,Quantity,ReceivedQuantity,ReceiptDate,Unit,UnitDescription,Project,ProjectCode'

/** Filter text budget per read: the spec's 5400-character URL limit, less the path and $select. */
const FILTER_BUDGET = 3_600

/** `PurchaseOrderID eq guid'…' or …` filters, each within the budget once URL-encoded. */
export function orderFilters(ids: readonly string[], budget: number = FILTER_BUDGET): string[] {
  const out: string[] = []
  let terms: string[] = []
  let size = 0
  for (const id of ids) {
    const term = `PurchaseOrderID eq guid'${id}'`
    const cost = encodeURIComponent(term + ' or ').length
    if (terms.length && size + cost > budget) {
      out.push(terms.join(' or '))
      terms = []
      size = 0
    }
    terms.push(term)
    size += cost
  }
  if (terms.length) out.push(terms.join(' or '))
  return out
}

export async function fetchOpenPurchaseLines(): Promise<LiveRows<PurchaseLine>> {
  const headers = await readDirectUrl(`purchaseorder/PurchaseOrders?$filter=ReceiptStatus lt 30&$select=${HEADER_FIELDS}`)
  const open = headers.rows.filter((h) => typeof h.PurchaseOrderID === 'string')
  const lines = joinLive(
    await Promise.all(
      orderFilters(open.map((h) => String(h.PurchaseOrderID))).map((f) =>
        readDirectUrl(`purchaseorder/PurchaseOrderLines?$filter=${f}&$select=${LINE_FIELDS}`),
      ),
    ),
  )
  return { rows: toPurchaseLines(open, lines.rows), asOf: oldestAsOf(headers.asOf, lines.asOf) }
}

/** Shared by Purchases and Materials, so switching screens reads Exact Online once. */
export function useOpenPurchaseLines(enabled = true) {
  return useQuery({ queryKey: exactKeys.openPurchaseLines(useDivision()), queryFn: fetchOpenPurchaseLines, enabled, staleTime: 5 * 60_000 })
}
