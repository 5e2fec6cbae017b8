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
    defaultOptions: { queries: { retry: shouldRetry } },
  })
  return client
}

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
