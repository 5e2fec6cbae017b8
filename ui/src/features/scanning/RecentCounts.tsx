import { useQuery } from '@tanstack/react-query'
import { countKeys } from '../../api/queries.ts'
import { useState } from 'react'
import { fetchRecentCounts, RECENT_COUNT_DAYS } from './counts.ts'
import { againWhileStored, LIVE_STALE_MS } from '../../api/exactDirect.ts'
import { AsOf } from '../../components/AsOf.tsx'
import { DeleteInExact } from '../../components/DeleteInExact.tsx'
import { locale, t } from '../../i18n/index.ts'
import { formatDate } from '../../lib/dateTime.ts'
import { formatQuantity } from '../../lib/quantity.ts'
import { userMessage } from '../../lib/errors.ts'

/**
 * The item's counts of the last two weeks, read live: a draft (a count not processed) can be
 * deleted; a processed one has set the stock, which only a new count corrects.
 */
export function RecentCounts({ item }: { item: string }) {
  const counts = useQuery({
    queryKey: countKeys.recent(item),
    queryFn: () => fetchRecentCounts(item),
    retry: false,
    staleTime: LIVE_STALE_MS,
    refetchInterval: againWhileStored,
  })
  // counts Exact deleted: gone at once, before the list is read again
  const [deleted, setDeleted] = useState<ReadonlySet<string>>(new Set())
  const rows = (counts.data?.rows ?? []).filter((c) => !deleted.has(c.id))
  return (
    <section className="flex flex-col gap-2 border-t border-slate-200 pt-3" aria-label={t('counts.recentTitle', { days: RECENT_COUNT_DAYS })}>
      <h3 className="font-semibold">{t('counts.recentTitle', { days: RECENT_COUNT_DAYS })}</h3>
      {counts.isPending && <p className="text-sm text-slate-500">{t('app.loading')}</p>}
      {counts.error && (
        <p role="alert" className="text-sm text-red-700">
          {userMessage(counts.error)}
        </p>
      )}
      <AsOf asOf={counts.data?.asOf} />
      {counts.isSuccess && rows.length === 0 && <p className="text-sm text-slate-600">{t('counts.none')}</p>}
      <ul className="divide-y divide-slate-100" data-testid="recent-counts">
        {rows.map((c) => (
          <li key={c.id} className="flex flex-wrap items-center gap-x-3 gap-y-1 py-2 text-sm" data-testid="recent-count">
            <span className="font-semibold">{t('counts.number', { number: c.number })}</span>
            <span className="text-slate-600">{c.date === null ? '–' : formatDate(c.date)}</span>
            <span>{c.location}</span>
            {c.counted !== null && <strong className="tabular-nums">{formatQuantity(c.counted, locale())}</strong>}
            <span className={`rounded px-1.5 text-xs ${c.processed ? 'bg-emerald-100 text-emerald-900' : 'bg-amber-100 text-amber-900'}`}>
              {c.processed ? t('counts.processed') : t('counts.draft')}
            </span>
            <span className="text-slate-500">{c.by}</span>
            {!c.processed && (
              <span className="ml-auto">
                <DeleteInExact
                  endpoint="stockCounts"
                  id={c.id}
                  question={t('counts.deleteQuestion', { number: c.number })}
                  what={t('counts.deleted')}
                  onDeleted={() => {
                    setDeleted((s) => new Set(s).add(c.id))
                    void counts.refetch()
                  }}
                />
              </span>
            )}
          </li>
        ))}
      </ul>
    </section>
  )
}
