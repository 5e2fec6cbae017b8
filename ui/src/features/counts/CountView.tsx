import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { Link } from 'react-router'
import type { Session } from '../../api/auth.ts'
import { isApiError } from '../../api/client.ts'
import { sectionClass } from '../../components/ui/Section.tsx'
import { LoadingScreen } from '../../components/LoadingScreen.tsx'
import { t, tCount } from '../../i18n/index.ts'
import { withDivision } from '../../lib/access.ts'
import { formatServerTime } from '../../lib/dateTime.ts'
import { userMessage } from '../../lib/errors.ts'
import { countQuery } from './api.ts'
import { CountActions } from './CountActions.tsx'
import { CountedLines } from './CountedLines.tsx'
import { CountingPanel, type Note } from './CountingPanel.tsx'
import { pollMs, scopeName, type CountSummary, type ReviewPage } from './logic.ts'
import { Review } from './Review.tsx'
import { StatusBadge } from './StatusBadge.tsx'

function BackLink({ session }: { session: Session }) {
  return (
    <Link
      to={withDivision('/counts', session)}
      className="inline-flex min-h-11 w-fit items-center text-sm text-sky-800 underline-offset-2 hover:underline focus:ring-2 focus:ring-sky-600 focus:outline-none"
    >
      ← {t('counts.back')}
    </Link>
  )
}

/** Where the count stands, in a sentence: on its way, a draft, processed, or refused with Exact's words. */
function StatusLine({ count }: { count: CountSummary }) {
  const look =
    count.status === 'refused' ? 'bg-red-50 text-red-900' : count.status === 'processed' ? 'bg-emerald-50 text-emerald-900' : 'bg-slate-50 text-slate-800'
  return (
    <div role="status" className={`flex flex-col gap-1 rounded p-3 ${look}`} data-testid="count-status" data-status={count.status}>
      <p>{count.status === 'counting' ? tCount('counts.explain.counting', count.lineCount) : t(`counts.explain.${count.status}`)}</p>
      {count.error && <p className="font-medium">{t('counts.exactSaid', { message: count.error })}</p>}
    </div>
  )
}

/** One count: what it is of and where it stands, counting (while open), the review and the actions. */
export function CountView({ id, session, onClosed }: { id: string; session: Session; onClosed: () => void }) {
  const [note, setNote] = useState<Note | null>(null)
  const [totals, setTotals] = useState<ReviewPage | null>(null)
  const count = useQuery({
    ...countQuery(id),
    // lines other counters add come in now and then; a count on its way shows where it got
    refetchInterval: (q) => pollMs(q.state.data?.status),
  })
  if (count.error && !count.data) {
    return (
      <>
        <BackLink session={session} />
        <p role="alert" className="rounded bg-red-50 p-3 text-red-800">
          {isApiError(count.error, 404) ? userMessage(count.error) : t('counts.loadError', { message: userMessage(count.error) })}
        </p>
      </>
    )
  }
  const c = count.data
  if (!c) return <LoadingScreen />
  return (
    <>
      <BackLink session={session} />
      <section className={sectionClass} aria-labelledby="count-title">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h1 id="count-title" className="text-2xl font-bold text-sky-900">
            {scopeName(c.scope)}
          </h1>
          <StatusBadge status={c.status} />
        </div>
        {c.description && <p className="text-slate-800">{c.description}</p>}
        <p className="text-sm text-slate-600">{t('counts.startedBy', { name: c.createdBy, when: formatServerTime(c.createdMs) })}</p>
        <StatusLine count={c} />
        {count.error && (
          <p role="alert" className="text-sm text-red-700">
            {t('counts.loadError', { message: userMessage(count.error) })}
          </p>
        )}
      </section>
      {c.status === 'counting' && (
        // minmax(0, …): a column no wider than the screen, whatever its scan box would take
        <div className="grid grid-cols-[minmax(0,1fr)] gap-4 lg:grid-cols-[minmax(0,28rem)_minmax(0,1fr)] lg:items-start">
          <CountingPanel count={c} note={note} onNote={setNote} />
          <CountedLines count={c} onNote={setNote} />
        </div>
      )}
      {/* before the review, so sending is not below hundreds of rows */}
      <CountActions count={c} session={session} totals={totals} onRemoved={onClosed} />
      <Review count={c} onTotals={setTotals} />
    </>
  )
}
