import { keepPreviousData, useInfiniteQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef, useState } from 'react'
import { countSessionKeys } from '../../api/queries.ts'
import { Section } from '../../components/ui/Section.tsx'
import { locale, t, type MessageKey } from '../../i18n/index.ts'
import { formatServerTime } from '../../lib/dateTime.ts'
import { userMessage } from '../../lib/errors.ts'
import { formatMoney } from '../../lib/format.ts'
import { useIsWide } from '../../lib/media.ts'
import { formatQty } from '../../lib/quantity.ts'
import { fetchReview } from './api.ts'
import { formatDifference, nextOffset, REVIEW_FILTERS, reviewStamp, type CountSummary, type ReviewFilter, type ReviewPage, type ReviewRow } from './logic.ts'
import { Button } from '../../components/ui/Button.tsx'

const FILTER_LABEL: Record<ReviewFilter, MessageKey> = {
  all: 'counts.filter.all',
  differences: 'counts.filter.differences',
  counted: 'counts.filter.counted',
  notCounted: 'counts.filter.notCounted',
}

const money = (n: number | null | undefined, signed = false) => (n === null || n === undefined ? '—' : formatMoney(n, locale(), signed))
const qty = (n: number | null | undefined) => (n === null || n === undefined ? '—' : formatQty(n))

/** A difference in colour: more than expected green, less red. */
function Difference({ value }: { value: number | null }) {
  const look = value === null || Math.abs(value) < 1e-9 ? 'text-slate-700' : value > 0 ? 'text-emerald-800' : 'text-red-700'
  return <span className={`font-medium ${look}`}>{formatDifference(value)}</span>
}

function LastCount({ row }: { row: ReviewRow }) {
  const last = row.lastCount
  if (!last) return <span className="text-slate-500">—</span>
  return <span>{t('counts.lastCountWas', { quantity: formatQty(last.quantity), when: formatServerTime(last.atMs), name: last.by })}</span>
}

function Totals({ page }: { page: ReviewPage }) {
  const item = (label: string, value: string, testId: string) => (
    <div className="flex flex-col rounded bg-slate-50 px-3 py-2">
      <dt className="text-sm text-slate-600">{label}</dt>
      <dd className="text-lg font-semibold" data-testid={testId}>
        {value}
      </dd>
    </div>
  )
  return (
    <dl className="grid grid-cols-2 gap-2 md:grid-cols-4">
      {item(t('counts.totalCounted'), page.counted.toLocaleString(locale()), 'review-counted')}
      {item(t('counts.totalNotCounted'), page.notCounted.toLocaleString(locale()), 'review-not-counted')}
      {item(t('counts.totalDifferences'), page.differences.toLocaleString(locale()), 'review-differences')}
      {item(t('counts.totalValue'), money(page.valueDifference, true), 'review-value')}
    </dl>
  )
}

const th = 'px-3 py-2 font-medium'
const td = 'px-3 py-2 align-top'

function RowsTable({ rows }: { rows: readonly ReviewRow[] }) {
  return (
    <div className="overflow-x-auto">
      <table className="w-full text-left text-sm">
        <thead className="bg-slate-50 text-slate-600">
          <tr>
            <th className={th}>{t('counts.col.item')}</th>
            <th className={th}>{t('counts.col.location')}</th>
            <th className={`${th} text-right`}>{t('counts.col.expected')}</th>
            <th className={`${th} text-right`}>{t('counts.col.counted')}</th>
            <th className={`${th} text-right`}>{t('counts.col.difference')}</th>
            <th className={`${th} text-right`}>{t('counts.col.value')}</th>
            <th className={th}>{t('counts.col.countedBy')}</th>
            <th className={th}>{t('counts.col.lastCount')}</th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.map((r) => (
            <tr key={`${r.item}|${r.location ?? ''}`} data-testid="review-row">
              <td className={td}>
                <span className="font-mono font-semibold">{r.itemCode}</span>
                <span className="block text-slate-600">{r.itemDescription}</span>
              </td>
              <td className={td}>{r.locationCode ?? '—'}</td>
              <td className={`${td} text-right tabular-nums`}>{qty(r.expected)}</td>
              <td className={`${td} text-right tabular-nums`}>{qty(r.counted)}</td>
              <td className={`${td} text-right tabular-nums`}>
                <Difference value={r.difference} />
              </td>
              <td className={`${td} text-right tabular-nums`}>{money(r.value, true)}</td>
              <td className={td}>{r.countedBy && r.countedMs !== null ? t('counts.byAt', { name: r.countedBy, when: formatServerTime(r.countedMs) }) : '—'}</td>
              <td className={td}>
                <LastCount row={r} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}

/** The review on a handheld: one row a card, the figures in a line. */
function RowsList({ rows }: { rows: readonly ReviewRow[] }) {
  return (
    <ul className="flex flex-col divide-y divide-slate-100 rounded border border-slate-200">
      {rows.map((r) => (
        <li key={`${r.item}|${r.location ?? ''}`} className="flex flex-col gap-0.5 px-3 py-2" data-testid="review-row">
          <span>
            <span className="font-mono font-semibold">{r.itemCode}</span>
            {r.locationCode && <span className="text-slate-600"> · {r.locationCode}</span>}
          </span>
          <span className="truncate text-sm text-slate-700">{r.itemDescription}</span>
          <span className="text-sm">
            {t('counts.rowFigures', { expected: qty(r.expected), counted: qty(r.counted) })}
            {r.difference !== null && (
              <>
                {' · '}
                <Difference value={r.difference} />
              </>
            )}
          </span>
        </li>
      ))}
    </ul>
  )
}

/**
 * What the local copy expects in the count's scope beside what was counted: the totals, a filter,
 * and the rows a page at a time. It is read again when the count's lines change.
 */
export function Review({ count, onTotals }: { count: CountSummary; onTotals?: (page: ReviewPage) => void }) {
  const queryClient = useQueryClient()
  const wide = useIsWide()
  const [filter, setFilter] = useState<ReviewFilter>('all')
  const review = useInfiniteQuery({
    queryKey: countSessionKeys.review(count.id, filter),
    queryFn: ({ pageParam }) => fetchReview(count.id, filter, pageParam),
    initialPageParam: 0,
    getNextPageParam: nextOffset,
    placeholderData: keepPreviousData,
  })
  // every page shown is read again when a line changed (the pages already shown stay shown)
  const stamp = reviewStamp(count)
  const seen = useRef(stamp)
  useEffect(() => {
    if (seen.current === stamp) return
    seen.current = stamp
    void queryClient.invalidateQueries({ queryKey: countSessionKeys.reviews(count.id) })
  }, [stamp, count.id, queryClient])

  const pages = review.data?.pages ?? []
  const last = pages.at(-1)
  useEffect(() => {
    if (last && onTotals) onTotals(last)
  }, [last, onTotals])
  const rows = pages.flatMap((p) => p.rows)
  return (
    <Section title={t('counts.reviewTitle')} titleId="review-title">
      {review.error && (
        <p role="alert" className="text-sm text-red-700">
          {t('counts.reviewError', { message: userMessage(review.error) })}
        </p>
      )}
      {last && <Totals page={last} />}
      <div role="tablist" aria-label={t('counts.filter')} className="flex flex-wrap gap-1 rounded-lg bg-slate-200 p-1">
        {REVIEW_FILTERS.map((f) => (
          <button
            key={f}
            type="button"
            role="tab"
            aria-selected={filter === f}
            onClick={() => setFilter(f)}
            className={`min-h-11 flex-1 rounded px-3 py-2 text-sm font-medium sm:flex-none ${filter === f ? 'bg-sky-800 text-white' : 'bg-white text-slate-700 hover:bg-slate-100'}`}
          >
            {t(FILTER_LABEL[f])}
          </button>
        ))}
      </div>
      {filter === 'differences' && <p className="text-sm text-slate-600">{t('counts.differencesHelp')}</p>}
      {review.isPending ? (
        <p role="status" className="text-slate-600">
          {t('counts.reviewLoading')}
        </p>
      ) : (
        last && (
          <>
            {rows.length === 0 ? <p className="text-slate-600">{t('counts.reviewEmpty')}</p> : wide ? <RowsTable rows={rows} /> : <RowsList rows={rows} />}
            <div className="flex flex-wrap items-center gap-3">
              <p className="text-sm text-slate-600" data-testid="review-shown">
                {t('counts.showing', { shown: rows.length, total: last.matching })}
              </p>
              {review.hasNextPage && (
                <Button type="button" variant="secondary" disabled={review.isFetchingNextPage} onClick={() => void review.fetchNextPage()}>
                  {review.isFetchingNextPage ? t('counts.reviewLoading') : t('counts.showMore')}
                </Button>
              )}
            </div>
          </>
        )
      )}
    </Section>
  )
}
