import { useMutation } from '@tanstack/react-query'
import { useDeferredValue, useMemo, useState } from 'react'
import { PURCHASE_ORDERS, useOpenPurchaseLines } from '../../api/purchases.ts'
import { startSync } from '../../api/sync.ts'
import { useSession } from '../../api/queries.ts'
import { AsOf } from '../../components/AsOf.tsx'
import { Loading } from '../../components/Loading.tsx'
import { t } from '../../i18n/index.ts'
import { filterLines, groupLines, isLate, suppliersOf, type GroupBy, type PurchaseFilters } from '../../lib/purchases.ts'
import { orgToday } from '../../lib/dateTime.ts'
import { PurchaseList } from './PurchaseList.tsx'
import { userMessage } from '../../lib/errors.ts'
import { syncStartMessage } from '../../lib/syncStart.ts'

const FIELD = 'flex min-w-40 flex-1 flex-col gap-1 text-sm font-medium'
const CONTROL =
  'min-h-11 rounded border border-slate-300 bg-white px-2 py-2 font-normal focus:border-sky-700 focus:ring-2 focus:ring-sky-600 focus:outline-none'
const BUTTON = 'min-h-11 rounded border border-slate-300 px-4 py-2 text-sm font-medium hover:bg-slate-50 focus:ring-2 focus:ring-sky-600 focus:outline-none'

/** Open purchase order lines by supplier, item or expected date, late ones marked. */
export default function PurchaseOverview() {
  const { data: session } = useSession()
  const query = useOpenPurchaseLines()
  const [filters, setFilters] = useState<PurchaseFilters>({ supplier: '', search: '', lateOnly: false })
  const [groupBy, setGroupBy] = useState<GroupBy>('supplier')
  const f = useDeferredValue(filters)
  const today = orgToday()

  const lines = useMemo(() => filterLines(query.data?.rows ?? [], f, today), [query.data, f, today])
  const groups = useMemo(() => groupLines(lines, groupBy, today), [lines, groupBy, today])
  const suppliers = useMemo(() => suppliersOf(query.data?.rows ?? []), [query.data])
  const summary = useMemo(
    () => ({
      lines: lines.length,
      orders: new Set(lines.map((l) => l.orderId)).size,
      late: lines.filter((l) => isLate(l, today)).length,
    }),
    [lines, today],
  )

  // the orders are synced: a refresh syncs their table, and its end reads the copy again
  const refresh = useMutation({ mutationFn: () => startSync([PURCHASE_ORDERS]) })
  const refreshMessage = syncStartMessage(refresh)

  if (!session) return <Loading />
  const set = (patch: Partial<PurchaseFilters>) => setFilters({ ...filters, ...patch })
  return (
    <div className="mx-auto flex w-full max-w-[1600px] flex-1 flex-col gap-4 p-4 md:p-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-bold text-sky-900">{t('purchases.title')}</h1>
        <div className="flex flex-col items-end gap-1">
          <button type="button" className={BUTTON} disabled={refresh.isPending} onClick={() => refresh.mutate()}>
            {t('purchases.refresh')}
          </button>
          {refreshMessage && (
            <p role={refresh.isError ? 'alert' : 'status'} className={`text-sm ${refresh.isError ? 'text-red-700' : 'text-slate-600'}`}>
              {refreshMessage}
            </p>
          )}
        </div>
      </div>
      <p className="max-w-3xl text-sm text-slate-600">{t('purchases.intro')}</p>
      <AsOf asOf={query.data?.asOf} />
      <div className="flex flex-wrap items-end gap-3">
        <label className={`${FIELD} min-w-56 flex-[2]`}>
          {t('purchases.search')}
          <input
            type="search"
            aria-label={t('purchases.search')}
            value={filters.search}
            placeholder={t('purchases.searchPlaceholder')}
            onChange={(e) => set({ search: e.target.value })}
            className={CONTROL}
          />
        </label>
        <label className={FIELD}>
          {t('purchases.supplier')}
          <select aria-label={t('purchases.supplier')} value={filters.supplier} onChange={(e) => set({ supplier: e.target.value })} className={CONTROL}>
            <option value="">{t('purchases.allSuppliers')}</option>
            {suppliers.map((s) => (
              <option key={s.id} value={s.id}>
                {s.code} {s.name}
              </option>
            ))}
          </select>
        </label>
        <label className={FIELD}>
          {t('purchases.groupBy')}
          <select aria-label={t('purchases.groupBy')} value={groupBy} onChange={(e) => setGroupBy(e.target.value as GroupBy)} className={CONTROL}>
            <option value="supplier">{t('purchases.group.supplier')}</option>
            <option value="item">{t('purchases.group.item')}</option>
            <option value="date">{t('purchases.group.date')}</option>
          </select>
        </label>
        <label className="flex min-h-11 items-center gap-2 text-sm font-medium">
          <input type="checkbox" checked={filters.lateOnly} onChange={(e) => set({ lateOnly: e.target.checked })} className="h-5 w-5 accent-sky-700" />
          {t('purchases.lateOnly')}
        </label>
      </div>
      {query.isPending && <p role="status">{t('purchases.loading')}</p>}
      {query.error && (
        <p role="alert" className="rounded bg-red-50 p-3 text-red-800">
          {t('purchases.loadFailed', { message: userMessage(query.error) })}{' '}
          <button type="button" className="underline" onClick={() => void query.refetch()}>
            {t('purchases.retry')}
          </button>
        </p>
      )}
      {query.data && (
        <>
          <p className="text-sm font-medium text-slate-700" data-testid="purchases-summary">
            {t('purchases.summary', summary)}
          </p>
          {groups.length === 0 && <p className="rounded bg-slate-50 p-6 text-center text-slate-600">{t('purchases.empty')}</p>}
          {groups.length > 0 && <PurchaseList groups={groups} groupBy={groupBy} division={session.division} today={today} lineCount={lines.length} />}
        </>
      )}
    </div>
  )
}
