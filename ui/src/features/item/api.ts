// What the item page reads, all from the server's local copy: the item, its stock per warehouse
// and storage location (the reads of Scanning, whose cache it shares), and the open orders that
// make it, need it or sell it, made into the flow lines of lib/shortage.ts for its projection.
import { useQuery } from '@tanstack/react-query'
import { chunks, dbGetAll, inList } from '../../api/db.ts'
import { stockTableKeys, useDivision } from '../../api/queries.ts'
import { madeLines, materialLines, num, OPEN_SALES_LINE, salesLines, shopOrderIndex, stockLines, str, type FlowLine } from '../../lib/shortage.ts'
import { itemStockQuery, itemWarehouseStockQuery, itemById, ordersMaking, ordersNeeding, type ScannedItem } from '../../api/scan.ts'

/** The item row as the page shows it: `itemById` reads every column, these among them. */
export type ItemDetails = ScannedItem & {
  ItemGroupCode?: string | null
  ItemGroupDescription?: string | null
  UnitDescription?: string | null
  EndDate?: string | null
}

/** Order ids per `in.(…)` list, so a URL stays short (36 characters per GUID). */
const IDS_PER_CALL = 100

/**
 * Under the Dashboard table's keys: the page is opened from the table, and the refresh that
 * follows a sync (which reaches every key of the table) then reaches the page as well.
 */
const pageKey = (division: number, id: string, part: 'item' | 'orders') => stockTableKeys.table(division, { item: id, part })

/** The warehouses of sales orders by order id (lower case): a line's warehouse is its header's. */
async function salesWarehouses(orderIds: readonly string[]): Promise<Map<string, string>> {
  const parts = await Promise.all(
    chunks(orderIds, IDS_PER_CALL).map((part) =>
      dbGetAll('salesOrderHeaders', [
        ['OrderID', inList(part)],
        ['select', 'OrderID,WarehouseID'],
      ]),
    ),
  )
  return new Map(parts.flat().map((h) => [str(h.OrderID).toLowerCase(), str(h.WarehouseID).toLowerCase()]))
}

/**
 * The item's free stock (FI), what open shop orders still make (MA), what their material lines
 * still need (MS) and what open sales order lines still deliver (SO), as the Materials screen
 * builds them. Purchase order lines are read live from Exact Online and are left out.
 */
export async function fetchItemLines(itemId: string): Promise<FlowLine[]> {
  const [making, needing, sales, positions] = await Promise.all([
    ordersMaking(itemId),
    ordersNeeding(itemId),
    dbGetAll('salesOrderLines', [
      ['Item', `eq.${itemId}`],
      ['Status', `in.(${OPEN_SALES_LINE.join(',')})`],
      ['select', 'ID,OrderID,OrderNumber,Item,Quantity,QuantityDelivered,DeliveryDate,Status,Project'],
    ]),
    // the free stock, which Scanning's read of the stock positions does not select
    dbGetAll('stockPositions', [
      ['ItemId', `eq.${itemId}`],
      ['select', 'ItemId,Warehouse,WarehouseCode,FreeStock,CurrentStock'],
    ]),
  ])
  const warehouses = await salesWarehouses([...new Set(sales.map((r) => str(r.OrderID)).filter(Boolean))])
  // the server sums each material line's issues from the synced ones: what is left is still needed
  const issued = new Map(needing.map(({ plan }) => [str(plan.ID).toLowerCase(), num(plan.IssuedQuantity)]))
  const orders = shopOrderIndex(needing.map(({ order }) => ({ ...order })))
  return [
    ...stockLines(positions),
    ...madeLines(making.map((o) => ({ ...o }))),
    ...materialLines(
      needing.map(({ plan }) => ({ ...plan })),
      orders,
      issued,
    ),
    ...salesLines(sales, warehouses),
  ]
}

/** The item, or null when the local copy has no item of that id. */
export function useItem(id: string) {
  return useQuery({
    queryKey: pageKey(useDivision(), id, 'item'),
    queryFn: (): Promise<ItemDetails | null> => itemById(id),
    enabled: id !== '',
  })
}

/** Stock per storage location and per warehouse, as the item card of Scanning reads it. */
export function useItemStock(id: string) {
  const locations = useQuery(itemStockQuery(id))
  const warehouses = useQuery(itemWarehouseStockQuery(id))
  return { locations, warehouses }
}

export function useItemLines(id: string) {
  return useQuery({ queryKey: pageKey(useDivision(), id, 'orders'), queryFn: () => fetchItemLines(id) })
}
