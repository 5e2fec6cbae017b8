import { useDeferredValue, useMemo, useState } from 'react'
import { useMaterialData } from './api.ts'
import { useOpenPurchaseLines } from '../../api/purchases.ts'
import { useSession } from '../../api/queries.ts'
import { AsOf } from '../../components/AsOf.tsx'
import { Loading } from '../../components/Loading.tsx'
import { InfoTip } from '../../components/Tooltip.tsx'
import { t } from '../../i18n/index.ts'
import { orgToday } from '../../lib/dateTime.ts'
import { projectAll, purchaseFlow, type ItemProjection } from '../../lib/shortage.ts'
import { MaterialFilters, NO_MATERIAL_FILTERS, type MaterialFilterState } from './MaterialFilters.tsx'
import { MaterialRow } from './MaterialRow.tsx'
import { userMessage } from '../../lib/errors.ts'

/** Rows rendered at first; more on demand (a big organization has thousands of materials in demand). */
const PAGE = 100

/** Material shortages (Katana's material availability): per material the first day it runs short. */
export default function Materials() {
  const { data: session } = useSession()
  const local = useMaterialData()
  const purchases = useOpenPurchaseLines()
  const [filters, setFilters] = useState<MaterialFilterState>(NO_MATERIAL_FILTERS)
  const f = useDeferredValue(filters)
  const [limit, setLimit] = useState(PAGE)
  const today = orgToday()

  const all = useMemo<ItemProjection[]>(() => {
    if (!local.data) return []
    const data = local.data
    const items = f.itemGroup ? new Set([...data.items.values()].filter((i) => i.itemGroup === f.itemGroup).map((i) => i.id)) : null
    const lines = purchases.data ? [...data.lines, ...purchaseFlow(purchases.data.rows)] : data.lines
    return projectAll(lines, { warehouse: f.warehouse, project: f.project, items })
  }, [local.data, purchases.data, f.itemGroup, f.warehouse, f.project])
  const liveReading = purchases.isPending

  const shown = useMemo(() => {
    const q = f.search.trim().toLowerCase()
    return all.filter((p) => {
      if (f.show === 'short' && p.availability !== 'short') return false
      if (f.show === 'attention' && p.availability === 'inStock') return false
      if (!q) return true
      const item = local.data?.items.get(p.item)
      return !!item && (item.code.toLowerCase().includes(q) || item.description.toLowerCase().includes(q))
    })
  }, [all, f.search, f.show, local.data])

  const counts = useMemo(() => {
    const c = { short: 0, expected: 0, inStock: 0 }
    for (const p of all) c[p.availability]++
    return c
  }, [all])

  if (!session) return <Loading />
  return (
    <div className="mx-auto flex w-full max-w-[1600px] flex-1 flex-col gap-4 p-4 md:p-6">
      <div className="flex flex-wrap items-center gap-3">
        <h1 className="text-2xl font-bold text-sky-900">{t('materials.title')}</h1>
        {/* on handhelds the drill-down explains the abbreviations; here the tooltip would leave the screen */}
        <span className="hidden md:inline-flex">
          <InfoTip label={t('materials.abbreviations')} text={t('materials.abbreviationsText')} />
        </span>
      </div>
      <p className="max-w-3xl text-sm text-slate-600">{t('materials.intro')}</p>
      <MaterialFilters
        value={filters}
        onChange={(next) => {
          setFilters(next)
          setLimit(PAGE)
        }}
      />
      <AsOf asOf={purchases.data?.asOf} />
      {liveReading && (
        <p role="status" data-testid="materials-live-reading" className="text-sm text-slate-600">
          {t('materials.poLoading')}
        </p>
      )}
      {purchases.error && (
        <p role="alert" className="rounded bg-amber-50 p-3 text-sm text-amber-900">
          {t('materials.poFailed', { message: userMessage(purchases.error) })}
        </p>
      )}
      {local.error && (
        <p role="alert" className="rounded bg-red-50 p-3 text-red-800">
          {t('materials.loadFailed', { message: userMessage(local.error) })}
        </p>
      )}
      {local.isPending ? (
        <Loading />
      ) : (
        local.data && (
          <>
            <p className="text-sm font-medium text-slate-700" data-testid="materials-summary">
              {t('materials.summary', counts)}
            </p>
            {shown.length === 0 ? (
              <p className="rounded bg-slate-50 p-6 text-center text-slate-600">{t('materials.empty')}</p>
            ) : (
              <ul className="rounded border border-slate-200 bg-white" data-testid="material-list">
                {shown.slice(0, limit).map((p) => (
                  <MaterialRow key={p.item} projection={p} item={local.data.items.get(p.item)} division={session.division} today={today} />
                ))}
              </ul>
            )}
            <div className="flex flex-wrap items-center gap-3 text-sm text-slate-600">
              <span>{t('materials.shown', { shown: Math.min(limit, shown.length), total: shown.length })}</span>
              {limit < shown.length && (
                <button
                  type="button"
                  onClick={() => setLimit(limit + PAGE)}
                  className="min-h-11 rounded border border-slate-300 px-4 py-2 font-medium hover:bg-slate-50 focus:ring-2 focus:ring-sky-600 focus:outline-none"
                >
                  {t('materials.more')}
                </button>
              )}
            </div>
          </>
        )
      )}
    </div>
  )
}
