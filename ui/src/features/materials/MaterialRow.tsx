import { memo, useState } from 'react'
import { ExternalLink } from '../../components/ExternalLink.tsx'
import { t } from '../../i18n/index.ts'
import { formatDay } from '../../lib/dateTime.ts'
import { formatQty } from '../../lib/quantity.ts'
import type { Availability, ItemProjection } from '../../lib/shortage.ts'
import type { MaterialItem } from './api.ts'
import { MaterialLines } from './MaterialLines.tsx'

const BADGE: Record<Availability, string> = {
  short: 'bg-red-100 text-red-800',
  expected: 'bg-amber-100 text-amber-900',
  inStock: 'bg-emerald-100 text-emerald-800',
}

function Figure({ label, value, unit, warn = false }: { label: string; value: number; unit: string; warn?: boolean }) {
  return (
    <span className="flex flex-col">
      <span className="text-xs text-slate-500">{label}</span>
      <span className={`font-semibold tabular-nums ${warn ? 'text-red-700' : ''}`}>
        {formatQty(value)} <span className="text-xs font-normal text-slate-500">{unit}</span>
      </span>
    </span>
  )
}

/** One material: availability, first short day and figures; the button opens its lines. */
export const MaterialRow = memo(function MaterialRow({
  projection,
  item,
  division,
  today,
}: {
  projection: ItemProjection
  item: MaterialItem | undefined
  division: number
  today: string
}) {
  const [open, setOpen] = useState(false)
  const code = item?.code ?? projection.item
  const unit = item?.unit ?? ''
  const p = projection
  return (
    <li
      data-testid="material-row"
      data-item={code}
      data-availability={p.availability}
      data-first-short={p.firstShortDay ?? ''}
      className="border-b border-slate-200 px-3 py-3"
    >
      <div className="flex flex-col gap-3 md:flex-row md:items-center">
        <div className="flex min-w-0 flex-1 flex-col gap-1">
          <span className="flex flex-wrap items-center gap-2">
            <ExternalLink page="itemCard" division={division} id={p.item} code={code} className="font-mono text-sm">
              {code}
            </ExternalLink>
            <span className={`rounded px-2 py-0.5 text-xs font-semibold ${BADGE[p.availability]}`}>{t(`materials.status.${p.availability}`)}</span>
          </span>
          <span className="truncate text-sm text-slate-700" title={item?.description}>
            {item?.description}
          </span>
        </div>
        <div className="grid grid-cols-2 gap-x-6 gap-y-2 text-sm sm:grid-cols-5 md:w-[36rem]">
          <span className="flex flex-col">
            <span className="text-xs text-slate-500">{t('materials.firstShort')}</span>
            <span data-testid="first-short" className={p.firstShortDay ? 'font-semibold text-red-700' : 'text-slate-500'}>
              {p.firstShortDay ? formatDay(p.firstShortDay) : t('materials.never')}
            </span>
          </span>
          <Figure label={t('materials.free')} value={p.free} unit={unit} />
          <Figure label={t('materials.demand')} value={p.demand} unit={unit} />
          <Figure label={t('materials.supply')} value={p.supply} unit={unit} />
          <Figure label={t('materials.lowest')} value={p.lowest} unit={unit} warn={p.lowest < 0} />
        </div>
        <div className="flex flex-wrap items-center gap-2">
          <button
            type="button"
            aria-expanded={open}
            aria-label={t(open ? 'materials.hideLines' : 'materials.showLines', { code })}
            onClick={() => setOpen(!open)}
            className="min-h-11 rounded border border-slate-300 px-4 py-2 text-sm font-medium hover:bg-slate-50 focus:ring-2 focus:ring-sky-600 focus:outline-none"
          >
            {t('materials.lines')} ({p.lines.length})
          </button>
          {p.availability === 'short' && (
            // Exact Online's purchase order page without an id opens a new order
            <ExternalLink page="purchaseOrder" division={division} className="text-sm">
              {t('materials.createPurchase')}
            </ExternalLink>
          )}
        </div>
      </div>
      {open && (
        <div className="mt-3">
          <MaterialLines projection={p} division={division} today={today} />
        </div>
      )}
    </li>
  )
})
