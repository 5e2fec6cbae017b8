import { useQuery } from '@tanstack/react-query'
import { queryKeys } from '../api/queries.ts'
import { getHealth } from '../api/health.ts'
import { t } from '../i18n/index.ts'
import { useOffline } from '../state/reachability.ts'

/** How often the app asks whether its server answers again while it cannot be reached. */
export const REACH_CHECK_MS = 5_000

/**
 * A line at the top while the server cannot be reached: the app still opens (its service worker
 * keeps the shell), but nothing is read or saved until the server answers again, which this asks
 * every few seconds so the line goes by itself.
 */
export function OfflineBanner() {
  const offline = useOffline()
  useQuery({
    queryKey: queryKeys.reachability,
    queryFn: getHealth,
    enabled: offline,
    refetchInterval: REACH_CHECK_MS,
    refetchIntervalInBackground: true,
    retry: false,
  })
  if (!offline) return null
  return (
    <div role="alert" data-testid="offline" className="bg-slate-800 px-4 py-2 text-sm font-medium text-white">
      {t('offline.banner')}
    </div>
  )
}
