import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query'
import { ApiError, isApiError, isProviderUnreachable } from './client.ts'
import { queryKeys } from './queries.ts'

/**
 * A 4xx answer will not change by asking again, nor will "Exact Online cannot be reached" within
 * seconds (the screen says so at once instead of loading on); network errors and other 5xx get two retries.
 */
export function shouldRetry(failureCount: number, error: unknown): boolean {
  if (error instanceof ApiError && error.status >= 400 && error.status < 500) return false
  if (isProviderUnreachable(error)) return false
  return failureCount < 2
}

/**
 * The app's query client. Any 401 outside the session check makes the session be checked at
 * once, so a lost session ends without waiting for the next 10-second tick.
 */
export function createQueryClient(): QueryClient {
  const recheckSession = (error: unknown, key?: readonly unknown[]) => {
    if (isApiError(error, 401) && key?.[0] !== queryKeys.session[0]) {
      void client.invalidateQueries({ queryKey: queryKeys.session })
    }
  }
  const client: QueryClient = new QueryClient({
    queryCache: new QueryCache({ onError: (error, query) => recheckSession(error, query.queryKey) }),
    mutationCache: new MutationCache({ onError: (error) => recheckSession(error) }),
    // `always`: offline, a call fails at once with the catalogue's message instead of waiting
    // unseen for the browser to come back online (the offline banner says why)
    defaultOptions: { queries: { retry: shouldRetry, networkMode: 'always' }, mutations: { networkMode: 'always' } },
  })
  return client
}

/** How long a live list waits before asking again when Exact Online could not be reached. */
const LIVE_LIST_RETRY_MS = 15_000

/**
 * For a live list that names things on a screen (employees, warehouses, locations): "Exact Online
 * cannot be reached" is asked again every 15 s a few times, since it is often only the spent
 * minute budget after a sync (otherwise names stay missing until a reload); screens show the
 * `failureReason` meanwhile.
 */
export const LIVE_LIST_RETRY = {
  retry: (failureCount: number, error: Error) => (isProviderUnreachable(error) ? failureCount < 4 : shouldRetry(failureCount, error)),
  retryDelay: (failureCount: number, error: Error) => (isProviderUnreachable(error) ? LIVE_LIST_RETRY_MS : Math.min(1000 * 2 ** failureCount, 30_000)),
} as const

/**
 * For a query that spends something single-use (a provider's authorization code): it runs once
 * however often its component mounts (StrictMode mounts twice) and is never retried or refetched.
 */
export const SINGLE_USE = {
  retry: false,
  staleTime: Infinity,
  gcTime: Infinity,
  refetchOnWindowFocus: false,
  refetchOnReconnect: false,
  refetchOnMount: false,
} as const
