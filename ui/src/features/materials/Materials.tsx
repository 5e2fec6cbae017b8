import { useDeferredValue, useState } from 'react'
import { useMaterialPage } from './api.ts'
import { useSession } from '../../api/queries.ts'
import { Loading } from '../../components/Loading.tsx'
import { InfoTip } from '../../components/Tooltip.tsx'
import { t } from '../../i18n/index.ts'
import { orgToday } from '../../lib/dateTime.ts'
import { MaterialFilters, NO_MATERIAL_FILTERS, type MaterialFilterState } from './MaterialFilters.tsx'
import { MaterialRow } from './MaterialRow.tsx'
import { userMessage } from '../../lib/errors.ts'

/** Rows read at first; more on demand (a big organization has thousands of materials in demand). */
const PAGE = 100

/**
 * Material shortages (Katana's material availability): per material the first day it runs short.
 * The server makes the projection from the local copy; the screen reads a page of it.
 */
export default function Materials() {
  const { data: session } = useSession()
  const [filters, setFilters] = useState<MaterialFilterState>(NO_MATERIAL_FILTERS)
  const f = useDeferredValue(filters)
  const [limit, setLimit] = useState(PAGE)
  const page = useMaterialPage({ ...f, limit })
  const today = orgToday()
  const shown = page.data?.rows ?? []
  const total = page.data?.total ?? 0

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
      {page.error && (
        <p role="alert" className="rounded bg-red-50 p-3 text-red-800">
          {t('materials.loadFailed', { message: userMessage(page.error) })}
        </p>
      )}
      {page.isPending ? (
        <Loading />
      ) : (
        page.data && (
          <>
            <p className="text-sm font-medium text-slate-700" data-testid="materials-summary">
              {t('materials.summary', page.data.counts)}
            </p>
            {shown.length === 0 ? (
              <p className="rounded bg-slate-50 p-6 text-center text-slate-600">{t('materials.empty')}</p>
            ) : (
              <ul className="rounded border border-slate-200 bg-white" data-testid="material-list">
                {shown.map((r) => (
                  <MaterialRow key={r.projection.item} projection={r.projection} item={r.item} division={session.division} today={today} />
                ))}
              </ul>
            )}
            <div className="flex flex-wrap items-center gap-3 text-sm text-slate-600">
              <span>{t('materials.shown', { shown: shown.length, total })}</span>
              {shown.length < total && (
                <button
                  type="button"
                  disabled={page.isPlaceholderData}
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
