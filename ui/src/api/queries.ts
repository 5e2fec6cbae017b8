// Query keys and hooks: the only place that decides how server state is cached.
import { useQuery, useQueryClient } from '@tanstack/react-query'
import { getSession, type Session } from './auth.ts'
import { getHealth } from './health.ts'
import { getSyncEndpoints, getSyncStatus } from './sync.ts'

export const queryKeys = {
  session: ['session'] as const,
  health: ['health'] as const,
  syncStatus: ['sync', 'status'] as const,
  syncEndpoints: ['sync', 'endpoints'] as const,
  status: ['status'] as const,
  setup: ['setup'] as const,
  reachability: ['reachability'] as const,
  printers: ['printers'] as const,
  signIn: (code: string | null, state: string) => ['signIn', code, state] as const,
  setupFinish: (code: string, state: string) => ['setupFinish', code, state] as const,
  importCheck: <U, M>(upload: U, mapping: M) => ['importCheck', upload, mapping] as const,
  organizationAccounts: (division: number) => ['organization', 'accounts', division] as const,
}

// Data of an organization carries its division in the key: a switch of organization
// invalidates the cache, but until the new rows arrive a key without the division would show
// the previous organization's. Data asked by an Exact id (a GUID) belongs to one organization
// already. Each `all` is the prefix that one invalidation uses to reach every key below it.

/** Exact's lists read live through /api/live (name as in live.ts: 'warehouses', 'itemGroups', ...). */
export const liveKeys = {
  all: ['live'] as const,
  /** The list in every organization: what a sync that refreshed it invalidates. */
  named: (name: string) => ['live', name] as const,
  list: (name: string, division: number) => ['live', name, division] as const,
}

export const stockTableKeys = {
  all: ['stockTable'] as const,
  table: <Q>(division: number, query: Q) => ['stockTable', division, query] as const,
}

export const planningKeys = {
  all: ['planning'] as const,
  list: (name: 'orders' | 'materials' | 'projects', division: number) => ['planning', name, division] as const,
  itemGroup: (division: number, group: string) => ['planning', 'itemGroup', division, group] as const,
  order: (orderId: string) => ['planning', 'order', orderId] as const,
  plans: (orderId: string) => ['planning', 'plans', orderId] as const,
  steps: (orderId: string) => ['planning', 'steps', orderId] as const,
  salesLines: (orderId: string) => ['planning', 'salesLines', orderId] as const,
}

export const scanKeys = {
  all: ['scan'] as const,
  stock: (itemId: string | undefined) => ['scan', 'stock', itemId] as const,
  warehouseStock: (itemId: string | undefined) => ['scan', 'warehouseStock', itemId] as const,
  ordersMaking: (itemId: string) => ['scan', 'ordersMaking', itemId] as const,
  ordersNeeding: (itemId: string) => ['scan', 'ordersNeeding', itemId] as const,
  byProducts: (orderId: string | undefined) => ['scan', 'byProducts', orderId] as const,
  purchaseLines: (itemId: string) => ['scan', 'purchaseLines', itemId] as const,
}

export const countKeys = {
  all: ['counts'] as const,
  recent: (itemId: string) => ['counts', 'recent', itemId] as const,
}

/**
 * Count sessions kept on this server (the Counts screen), not Exact's StockCounts above. A
 * session's id is this server's GUID, of one organization already.
 */
export const countSessionKeys = {
  all: ['countSessions'] as const,
  list: (division: number) => ['countSessions', 'list', division] as const,
  one: (id: string) => ['countSessions', 'one', id] as const,
  /** Every page of a count's review, whatever the filter: what a changed line reads again. */
  reviews: (id: string) => ['countSessions', 'review', id] as const,
  review: (id: string, filter: string) => ['countSessions', 'review', id, filter] as const,
}

/** The outbox lists the organization's writes; an entry's number is the installation's. */
export const outboxKeys = {
  all: ['outbox'] as const,
  list: (division: number) => ['outbox', 'list', division] as const,
  entries: (ids: readonly number[]) => ['outbox', 'entries', ids] as const,
  entry: (id: number | undefined) => ['outbox', 'entry', id] as const,
}

export const hoursKeys = {
  all: ['hours'] as const,
  /** Every week of every organization: what a booked timer invalidates. */
  weeks: ['hours', 'week'] as const,
  week: (division: number, day: string) => ['hours', 'week', division, day] as const,
  names: (division: number, day: string, rows: number | undefined) => ['hours', 'names', division, day, rows] as const,
  steps: (orderId: string | undefined) => ['hours', 'steps', orderId] as const,
  timers: (division: number) => ['hours', 'timers', division] as const,
}

export const receiptKeys = {
  all: ['receipts'] as const,
  list: (division: number) => ['receipts', 'list', division] as const,
  /** Lines of receipts: of those on screen first, then of all (`'all'`), for the search. */
  linesAll: (division: number) => ['receipts', 'lines', division] as const,
  lines: (division: number, which: readonly string[] | 'all') => ['receipts', 'lines', division, which] as const,
  openLines: (division: number) => ['receipts', 'openLines', division] as const,
  needs: (itemIds: readonly string[]) => ['receipts', 'needs', itemIds] as const,
  tracking: (itemIds: readonly string[]) => ['receipts', 'tracking', itemIds] as const,
}

export const transferKeys = {
  all: ['transfers'] as const,
  recent: (division: number) => ['transfers', 'recent', division] as const,
  /** Where each item can be moved from, for every item. */
  fromAll: ['transfers', 'from'] as const,
  from: (itemId: string | undefined) => ['transfers', 'from', itemId] as const,
}

export const materialKeys = {
  all: ['materials'] as const,
  /** Pages of the server's projection: what a finished sync reads again. */
  shortagesAll: ['materials', 'shortages'] as const,
  shortages: (division: number, query: object) => ['materials', 'shortages', division, query] as const,
  projects: (division: number) => ['materials', 'projects', division] as const,
}

/** Open purchase order lines of the local copy: what a finished sync reads again. */
export const purchaseKeys = {
  all: ['purchases'] as const,
  open: (division: number) => ['purchases', 'open', division] as const,
}

/**
 * The organization the signed-in session works in, for the keys of its data. Screens that
 * read organization data are shown only with a session, so 0 (no organization) is not met.
 */
export function useDivision(): number {
  return useSession().data?.division ?? 0
}

/** The session check runs every 10 s while signed in (spec §4) and stops when public. */
export const SESSION_CHECK_MS = 10_000

export function sessionRefetchInterval(data: Session | undefined): number | false {
  return data && data.tier !== 'public' ? SESSION_CHECK_MS : false
}

export function useSession() {
  const client = useQueryClient()
  return useQuery({
    queryKey: queryKeys.session,
    // the last session this browser had stands in only when the app opens without the server: a
    // check that fails while a screen is in use keeps the session it has (and its screen)
    queryFn: () => {
      const current = client.getQueryData<Session>(queryKeys.session)
      return getSession({ offlineCopy: !current || !!current.offline })
    },
    refetchInterval: (query) => sessionRefetchInterval(query.state.data),
    refetchIntervalInBackground: true,
    retry: false,
  })
}

export function useHealth() {
  return useQuery({ queryKey: queryKeys.health, queryFn: getHealth, retry: false })
}

/** While a sync runs its state is polled, so the table fills as it goes. */
export function useSyncStatus(enabled: boolean) {
  return useQuery({
    queryKey: queryKeys.syncStatus,
    queryFn: getSyncStatus,
    enabled,
    refetchInterval: (query) => (query.state.data?.running ? 2_000 : false),
  })
}

export function useSyncEndpoints(enabled: boolean) {
  return useQuery({ queryKey: queryKeys.syncEndpoints, queryFn: getSyncEndpoints, enabled, staleTime: Infinity })
}
