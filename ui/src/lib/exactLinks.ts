// Pages of Exact Online opened from the app (spec §2 external link): by division and record id.
// The page paths are kept here only, so a change at the provider is one edit.
import type { MessageKey } from '../i18n/index.ts'

/** The host when the server did not say which (an older server). */
export const EXACT_HOST = 'https://start.exactonline.nl'

/** The company's Exact Online host as the server is configured (its country's), else the default. */
export function exactHost(session: { exactHost?: string } | undefined): string {
  const host = session?.exactHost?.replace(/\/+$/, '')
  return host || EXACT_HOST
}

export type ExactPage =
  'portal' | 'itemCard' | 'inventoryTransactions' | 'purchaseOrder' | 'shopOrder' | 'itemVersion' | 'salesOrder' | 'project' | 'purchaseInvoice'

/** Path and the query parameter that carries the record id (none for the portal). */
const PAGES: Record<ExactPage, { path: string; idParam?: string; label: MessageKey }> = {
  portal: { path: '/docs/MenuPortal.aspx', label: 'link.portal' },
  itemCard: { path: '/docs/LogItemCard.aspx', idParam: 'ItemID', label: 'link.itemCard' },
  inventoryTransactions: { path: '/docs/LogStockTransactions.aspx', idParam: 'Item', label: 'link.inventoryTransactions' },
  purchaseOrder: { path: '/docs/PurPurchaseOrder.aspx', idParam: 'ID', label: 'link.purchaseOrder' },
  shopOrder: { path: '/docs/ShopOrder.aspx', idParam: 'ID', label: 'link.shopOrder' },
  itemVersion: { path: '/docs/MfgItemVersion.aspx', idParam: 'ID', label: 'link.itemVersion' },
  salesOrder: { path: '/docs/SlsSalesOrder.aspx', idParam: 'ID', label: 'link.salesOrder' },
  project: { path: '/docs/PrjProject.aspx', idParam: 'ID', label: 'link.project' },
  purchaseInvoice: { path: '/docs/PurInvoice.aspx', idParam: 'EntryID', label: 'link.purchaseInvoice' },
}

/** The page's address; ids are GUIDs, written in braces as Exact's own links do. */
export function exactUrl(page: ExactPage, division: number, id?: string, host: string = EXACT_HOST): string {
  const def = PAGES[page]
  const q = new URLSearchParams()
  if (def.idParam && id) q.set(def.idParam, `{${id.replace(/[{}]/g, '')}}`)
  q.set('_Division_', String(division))
  return `${host}${def.path}?${q}`
}

export function exactPageLabel(page: ExactPage): MessageKey {
  return PAGES[page].label
}
