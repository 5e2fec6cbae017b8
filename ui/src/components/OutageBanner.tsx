import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef } from 'react'
import { Link } from 'react-router'
import { providerAccess, type Session } from '../api/auth.ts'
import { isDated } from '../api/live.ts'
import { queryKeys } from '../api/queries.ts'
import { getStatus } from '../api/status.ts'
import { t, tCount } from '../i18n/index.ts'
import { hasFullAccess, withDivision } from '../lib/access.ts'
import { formatTime, wallOf } from '../lib/dateTime.ts'
import { noticeFor } from '../lib/outage.ts'

/** How often a signed-in screen asks whether Exact Online answers and how the queue stands. */
export const STATUS_CHECK_MS = 5_000

/**
 * When Exact Online answers again, what a screen shows from the stored copy is read again at
 * once, so its "as of" goes without waiting for the next visit.
 */
function useRereadWhenBack(reachable: boolean | undefined) {
  const queryClient = useQueryClient()
  const was = useRef(reachable)
  useEffect(() => {
    if (was.current === false && reachable === true) {
      void queryClient.invalidateQueries({ predicate: (q) => isDated(q.state.data) })
    }
    if (reachable !== undefined) was.current = reachable
  }, [reachable, queryClient])
}

/**
 * A line under the header while Exact Online is away (reads come from the local copy, writes
 * wait in the outbox), while writes are on their way, or when some were refused.
 */
export function OutageBanner({ session }: { session: Session }) {
  const { data } = useQuery({
    queryKey: queryKeys.status,
    queryFn: getStatus,
    refetchInterval: STATUS_CHECK_MS,
    refetchIntervalInBackground: true,
    retry: false,
  })
  useRereadWhenBack(data?.provider.reachable)
  const notice = noticeFor(data, providerAccess(session))
  if (!notice) return null
  const queue = hasFullAccess(session) ? (
    <Link to={`${withDivision('/mng', session)}#mng-outbox`} className="ml-2 underline">
      {t('outage.details')}
    </Link>
  ) : null
  if (notice.kind === 'outage') {
    const time = notice.since && formatTime(wallOf(notice.since.getTime()))
    return (
      <div role="alert" aria-label={t('outage.label')} data-testid="outage" className="bg-amber-100 px-4 py-2 text-sm text-amber-950">
        {time ? t('outage.down', { time }) : t('outage.downNoTime')} {notice.pending > 0 && tCount('outage.waiting', notice.pending)}
        {notice.pending > 0 && queue}
      </div>
    )
  }
  const text =
    notice.kind === 'sending'
      ? tCount('outage.sending', notice.pending)
      : notice.kind === 'waiting'
        ? tCount('outage.waitingUp', notice.pending)
        : tCount('outage.refused', notice.failed)
  const tone = notice.kind === 'refused' ? 'bg-red-50 text-red-900' : notice.kind === 'waiting' ? 'bg-amber-50 text-amber-950' : 'bg-sky-50 text-sky-900'
  return (
    <div role="status" aria-label={t('outage.label')} data-testid="queue-notice" className={`px-4 py-1 text-sm ${tone}`}>
      {text}
      {queue}
    </div>
  )
}
