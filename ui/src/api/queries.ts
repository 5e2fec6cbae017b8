// Query keys and hooks: the only place that decides how server state is cached.
import { useQuery } from '@tanstack/react-query'
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
}

/** The session check runs every 10 s while signed in (spec §4) and stops when public. */
export const SESSION_CHECK_MS = 10_000

export function sessionRefetchInterval(data: Session | undefined): number | false {
  return data && data.tier !== 'public' ? SESSION_CHECK_MS : false
}

export function useSession() {
  return useQuery({
    queryKey: queryKeys.session,
    queryFn: getSession,
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
