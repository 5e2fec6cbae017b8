// What the Planning screen reads from the local copy and writes back to Exact Online.
import { call, type BodyOf } from '../../api/contract.ts'
import { dbGet, dbGetAll, type Row } from '../../api/db.ts'
import { keyedWrite } from '../../api/writes.ts'
import type { MaterialNeeds } from './logic/availability.ts'

/** A shop order as the chart has it: what its bar, its filters and its moves need. */
export interface ShopOrder {
  ID: string
  ShopOrderNumber: number
  Description: string | null
  Item: string
  ItemCode: string | null
  ItemDescription: string | null
  PlannedStartDate: string | null
  PlannedDate: string | null
  Status: number
  IsOnHold: number
  Warehouse: string | null
  SelectionCode: string | null
  Project: string | null
  ProjectDescription: string | null
  YourRef: string | null
}

/** A shop order in full, as its window shows and changes it. */
export interface ShopOrderDetails extends ShopOrder {
  PlannedQuantity: number
  ProducedQuantity: number
  IsReleased: number
  IsInPlanning: number
  SelectionCodeCode: string | null
  ItemVersion?: string | null
  ItemVersionDescription?: string | null
  Notes: string | null
  Unit: string | null
  ProductionLeadDays: number | null
}

const CHART_FIELDS =
  'ID,ShopOrderNumber,Description,Item,ItemCode,ItemDescription,PlannedStartDate,PlannedDate,Status,IsOnHold,Warehouse,' +
  'SelectionCode,Project,ProjectDescription,YourRef'
const DETAIL_FIELDS = `${CHART_FIELDS},PlannedQuantity,ProducedQuantity,IsReleased,IsInPlanning,SelectionCodeCode,Notes,Unit,ProductionLeadDays,ItemVersion,ItemVersionDescription`

/**
 * Shop orders still to be made: open (10) and in process (20). In the store's order: the chart
 * sorts them by start itself, and an `order` would make the server sort every open order again
 * for each of the pages (21 at scale large). Pages, not one answer of them all: at scale large
 * one answer of 21,000 orders made the first view slower (1.28 s against 1.04 s), since the
 * pages come in while the browser reads the ones before. Only the chart's fields: the rest
 * (notes, quantities, version) was a third of each page, and the order's window reads it.
 */
export const fetchOpenShopOrders = () =>
  dbGetAll<ShopOrder>('shopOrders', [
    ['Status', 'lt.30'],
    ['select', CHART_FIELDS],
  ])

/** One shop order in full, for its window; null when the local copy no longer has it. */
export async function fetchShopOrder(id: string): Promise<ShopOrderDetails | null> {
  const rows = await dbGet<ShopOrderDetails>('shopOrders', [
    ['ID', `eq.${id}`],
    ['select', DETAIL_FIELDS],
  ])
  return rows[0] ?? null
}

export interface MaterialPlan {
  ID: string
  ShopOrder: string
  Item: string
  ItemCode: string | null
  ItemDescription: string | null
  PlannedQuantity: number
  Type: number
  Status: number
  StatusDescription?: string | null
  Unit: string | null
  LineNumber: number
}

/**
 * What the material dots are worked out from, in one answer of the server: the open orders'
 * material lines with what each still needs (planned less issued, less what the outbox still
 * issues), and the free stock and planned receipts of those items. Kept in the answer's columns;
 * an order (by its id in lower case, as the server writes it) is told where its lines are.
 */
export async function fetchPlanningMaterials(): Promise<MaterialNeeds> {
  const a = await call('get', '/planning/materials')
  const orders = new Map<string, { start: number; count: number }>()
  let start = 0
  a.orders.forEach((id, i) => {
    orders.set(id, { start, count: a.counts[i] })
    start += a.counts[i]
  })
  return { orders, line: a.line, item: a.item, quantity: a.quantity, free: a.free, incoming: a.incoming }
}

/** Ids of the items in an item group (lower case, as the filter compares them). */
export async function fetchItemIdsInGroup(group: string): Promise<Set<string>> {
  const rows = await dbGetAll<{ ID: string }>('items', [
    ['ItemGroup', `eq.${group}`],
    ['select', 'ID'],
  ])
  return new Set(rows.map((r) => r.ID.toLowerCase()))
}

export interface Project {
  ID: string
  Code: string
  Description: string
}

export const fetchProjects = () =>
  dbGetAll<Project>('projects', [
    ['select', 'ID,Code,Description'],
    ['order', 'Code'],
  ])

export const fetchOrderPlans = (order: string) =>
  dbGet<MaterialPlan>('shopOrderMaterialPlans', [
    ['ShopOrder', `eq.${order}`],
    ['order', 'LineNumber'],
  ])

export const fetchOrderSteps = (order: string) =>
  dbGet<Row>('shopOrderRoutingStepPlans', [
    ['ShopOrder', `eq.${order}`],
    ['order', 'LineNumber'],
  ])

/** The write-back fields the planning changes (a part of what `updateShopOrder` takes). */
export interface ShopOrderChange extends Partial<Omit<BodyOf<'/exact/updateShopOrder', 'put'>, 'ID'>> {
  PlannedStartDate?: string
  PlannedDate?: string
  IsReleased?: number
  IsOnHold?: number
  IsInPlanning?: number
  Notes?: string
  /** A selection code's id, or null to clear it. */
  SelectionCode?: string | null
  YourRef?: string
  ProductionLeadDays?: number
}

/** What a change shows besides the fields it writes: the new selection code's own code. */
export type ShownChange = Partial<Pick<ShopOrderDetails, 'SelectionCodeCode'>>

/** 200 delivered, 202 queued; a refusal (422) throws with Exact's message. */
export const updateShopOrder = (id: string, change: ShopOrderChange) =>
  keyedWrite('/exact/updateShopOrder', { method: 'PUT', body: { ID: id, ...change } satisfies BodyOf<'/exact/updateShopOrder', 'put'> })

export const getOutboxEntry = (id: number) => call('get', '/outbox/{id}', { params: { id } })

/** A sales order line made by a shop order (its ShopOrder link), as the local copy has it. */
export interface SalesLine {
  ID: string
  OrderID: string | null
  OrderNumber: number
  LineNumber: number
  ItemCode: string | null
  Description: string | null
  Quantity: number
  QuantityDelivered: number
  DeliveryDate: string | null
  Status: number
  DeliveryStatus: number | null
}

export const fetchOrderSalesLines = (order: string) =>
  dbGet<SalesLine>('salesOrderLines', [
    ['ShopOrder', `eq.${order}`],
    ['select', 'ID,OrderID,OrderNumber,LineNumber,ItemCode,Description,Quantity,QuantityDelivered,DeliveryDate,Status,DeliveryStatus'],
    ['order', 'OrderNumber,LineNumber'],
  ])

export { updateSalesLineDelivery } from '../../api/salesOrders.ts'
