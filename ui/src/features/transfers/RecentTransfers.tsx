import { useQuery } from '@tanstack/react-query'
import { transferKeys, useDivision } from '../../api/queries.ts'
import { useState } from 'react'
import { fetchRecentTransfers, RECENT_DAYS } from './api.ts'
import { sectionClass } from '../../components/ui/Section.tsx'
import { locale, t } from '../../i18n/index.ts'
import { formatProviderDate } from '../../lib/dateTime.ts'
import { formatQuantity } from '../../lib/quantity.ts'
import { againWhileStored, LIVE_STALE_MS } from '../../api/exactDirect.ts'
import { AsOf } from '../../components/AsOf.tsx'
import { DeleteInExact } from '../../components/DeleteInExact.tsx'
import { InfoTip } from '../../components/Tooltip.tsx'
import { userMessage } from '../../lib/errors.ts'
import { Button } from '../../components/ui/Button.tsx'

/** Rows shown; older ones are in Exact Online. */
const SHOWN = 50

/** Warehouse transfers of the last two weeks, read live from Exact Online. */
export function RecentTransfers() {
  const recent = useQuery({
    queryKey: transferKeys.recent(useDivision()),
    queryFn: () => fetchRecentTransfers(),
    retry: false,
    staleTime: LIVE_STALE_MS,
    refetchInterval: againWhileStored,
  })
  // transfers Exact deleted: gone at once, before the list is read again
  const [deleted, setDeleted] = useState<ReadonlySet<string>>(new Set())
  const rows = (recent.data?.rows ?? []).filter((tr) => !deleted.has(tr.id))
  return (
    <section className={sectionClass} aria-labelledby="recent-title">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h2 id="recent-title" className="text-lg font-semibold">
          {t('transfers.recentTitle', { days: RECENT_DAYS })}
        </h2>
        <Button type="button" variant="secondary" onClick={() => void recent.refetch()} disabled={recent.isFetching}>
          {t('transfers.refresh')}
        </Button>
      </div>
      {recent.isPending && <p className="text-slate-500">{t('app.loading')}</p>}
      {recent.error && (
        <p role="alert" className="text-red-700">
          {t('transfers.loadError', { message: userMessage(recent.error) })}
        </p>
      )}
      <AsOf asOf={recent.data?.asOf} />
      {recent.isSuccess && rows.length === 0 && <p className="text-slate-600">{t('transfers.noneRecent')}</p>}
      <ul className="divide-y divide-slate-100" data-testid="recent-transfers">
        {rows.slice(0, SHOWN).map((tr) => (
          <li key={tr.id} className="flex flex-col gap-1 py-2" data-testid="recent-transfer">
            <div className="flex flex-wrap items-baseline gap-x-3 text-sm">
              <span className="font-semibold">{t('transfers.number', { number: tr.number })}</span>
              <span className="text-slate-600" data-testid="transfer-date">
                {tr.date === null ? '–' : formatProviderDate(tr.date)}
              </span>
              <span className={`rounded px-1.5 text-xs ${tr.processed ? 'bg-emerald-100 text-emerald-900' : 'bg-amber-100 text-amber-900'}`}>
                {tr.processed ? t('transfers.processed') : t('transfers.draft')}
              </span>
              <span className="text-slate-500">{tr.by}</span>
              {tr.processed ? (
                <InfoTip label={t('transfers.processed')} text={t('transfers.processedKept')} />
              ) : (
                <span className="ml-auto">
                  <DeleteInExact
                    endpoint="warehouseTransfers"
                    id={tr.id}
                    question={t('transfers.deleteQuestion', { number: tr.number })}
                    what={t('transfers.deleted')}
                    onDeleted={() => {
                      setDeleted((s) => new Set(s).add(tr.id))
                      void recent.refetch()
                    }}
                  />
                </span>
              )}
            </div>
            {tr.lines.map((l, i) => (
              <p key={i} className="text-sm text-slate-700">
                <span className="font-mono">{l.itemCode}</span> {l.itemDescription}:{' '}
                <strong className="tabular-nums">{formatQuantity(l.quantity, locale())}</strong>{' '}
                {t('transfers.route', { from: `${tr.from}${l.from ? ' · ' + l.from : ''}`, to: `${tr.to}${l.to ? ' · ' + l.to : ''}` })}
              </p>
            ))}
          </li>
        ))}
      </ul>
    </section>
  )
}
