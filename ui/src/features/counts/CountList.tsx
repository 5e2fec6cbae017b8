import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { Link } from 'react-router'
import type { Session } from '../../api/auth.ts'
import { Section } from '../../components/ui/Section.tsx'
import { t, tCount } from '../../i18n/index.ts'
import { withDivision } from '../../lib/access.ts'
import { formatServerTime } from '../../lib/dateTime.ts'
import { userMessage } from '../../lib/errors.ts'
import { countsQuery } from './api.ts'
import { splitCounts, scopeName, type CountSummary } from './logic.ts'
import { NewCount } from './NewCount.tsx'
import { StatusBadge } from './StatusBadge.tsx'
import { Button } from '../../components/ui/Button.tsx'

/** A count's address: this screen with its id, so the link opens it (and a reload keeps it). */
export const countHref = (session: Session, id: string) => `${withDivision('/counts', session)}&id=${encodeURIComponent(id)}`

function CountItem({ count, session }: { count: CountSummary; session: Session }) {
  return (
    <li className="flex flex-col gap-1 p-3" data-testid="count-item">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <Link
          to={countHref(session, count.id)}
          className="inline-flex min-h-11 items-center font-semibold text-sky-800 underline-offset-2 hover:underline focus:ring-2 focus:ring-sky-600 focus:outline-none"
        >
          {scopeName(count.scope)}
        </Link>
        <StatusBadge status={count.status} />
      </div>
      {count.description && <p className="text-slate-800">{count.description}</p>}
      <p className="text-sm text-slate-600">
        {t('counts.startedBy', { name: count.createdBy, when: formatServerTime(count.createdMs) })} · {tCount('counts.lines', count.lineCount)}
      </p>
      {count.error && <p className="text-sm text-red-700">{t('counts.exactSaid', { message: count.error })}</p>}
    </li>
  )
}

function Group({ title, id, counts, empty, session }: { title: string; id: string; counts: CountSummary[]; empty: string; session: Session }) {
  return (
    <Section title={title} titleId={id}>
      {counts.length === 0 ? (
        <p className="text-slate-600">{empty}</p>
      ) : (
        <ul className="flex flex-col divide-y divide-slate-100 rounded border border-slate-200">
          {counts.map((c) => (
            <CountItem key={c.id} count={c} session={session} />
          ))}
        </ul>
      )}
    </Section>
  )
}

/** The organization's counts: those still open first, then those sent; and a new one. */
export function CountList({ session, onStarted }: { session: Session; onStarted: (id: string) => void }) {
  const [starting, setStarting] = useState(false)
  const counts = useQuery({
    ...countsQuery(session.division),
    // a count on its way to Exact Online shows where it got
    refetchInterval: (q) => (q.state.data?.counts.some((c) => c.status === 'sending') ? 3_000 : false),
  })
  const { open, sent } = splitCounts(counts.data?.counts ?? [])
  return (
    <>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-bold text-sky-900">{t('counts.title')}</h1>
        {!starting && (
          <Button type="button" variant="primary" onClick={() => setStarting(true)}>
            {t('counts.new')}
          </Button>
        )}
      </div>
      {starting && <NewCount onStarted={onStarted} onCancel={() => setStarting(false)} />}
      {counts.error && (
        <p role="alert" className="rounded bg-red-50 p-3 text-red-800">
          {t('counts.loadError', { message: userMessage(counts.error) })}
        </p>
      )}
      {counts.isPending ? (
        <p role="status" className="text-slate-600">
          {t('counts.loading')}
        </p>
      ) : (
        counts.data && (
          <>
            <Group title={t('counts.openTitle')} id="counts-open" counts={open} empty={t('counts.noneOpen')} session={session} />
            <Group title={t('counts.sentTitle')} id="counts-sent" counts={sent} empty={t('counts.noneSent')} session={session} />
          </>
        )
      )}
    </>
  )
}
