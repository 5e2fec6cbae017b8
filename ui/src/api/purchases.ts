// Open purchase order lines from the local copy: the server joins the lines of Exact's synced
// purchase order stream to their orders and answers only those still expecting goods
// (`GET /purchases/open`), so Purchases and the receipt screens read one short answer instead of
// every row of every open order (75,000 rows in 81 pages at scale large).
import { useQuery } from '@tanstack/react-query'
import { purchaseKeys, useDivision } from './queries.ts'
import type { PurchaseLine } from '../lib/purchases.ts'
import { call } from './contract.ts'
import type { LiveRows } from './live.ts'

/** The local table of Exact's purchase order stream (a sync endpoint of its own). */
export const PURCHASE_ORDERS = 'purchaseOrders'

export async function fetchOpenPurchaseLines(): Promise<LiveRows<PurchaseLine>> {
  const lines = await call('get', '/purchases/open')
  // the local copy, as every synced screen: the sync status says how recent it is
  return { rows: lines.map((l) => ({ ...l, orderDay: l.orderDay ?? null, day: l.day ?? null })), asOf: null }
}

/** A finished sync reads it again; switching screens reuses the read for a minute. */
export function useOpenPurchaseLines(enabled = true) {
  return useQuery({ queryKey: purchaseKeys.open(useDivision()), queryFn: fetchOpenPurchaseLines, enabled, staleTime: 60_000 })
}
