import { t } from '../../i18n/index.ts'
import type { Availability } from './logic/availability.ts'
import { AVAILABILITY_DOT, AVAILABILITY_LABEL, LATE_RING, statusClass } from './bars.ts'

const STATES: Availability[] = ['inStock', 'expected', 'notAvailable', 'none']

/** What the bar colours (status) and the dots (material) mean. */
export function Legend() {
  const swatch = 'inline-block h-3 w-5 rounded border'
  return (
    <div className="flex flex-wrap items-center gap-x-4 gap-y-1 text-xs text-slate-700" aria-label={t('planning.legend')}>
      <span className="inline-flex items-center gap-1">
        <span className={`${swatch} ${statusClass(10, false)}`} /> {t('status.shopOrder.10')}
      </span>
      <span className="inline-flex items-center gap-1">
        <span className={`${swatch} ${statusClass(20, false)}`} /> {t('status.shopOrder.20')}
      </span>
      <span className="inline-flex items-center gap-1">
        <span className={`${swatch} ${statusClass(10, true)}`} /> {t('planning.onHold')}
      </span>
      <span className="inline-flex items-center gap-1">
        <span className={`${swatch} ${statusClass(10, false)} ${LATE_RING}`} /> {t('planning.lateLegend')}
      </span>
      {STATES.map((s) => (
        <span key={s} className="inline-flex items-center gap-1">
          <span className={`h-2.5 w-2.5 rounded-full ${AVAILABILITY_DOT[s]}`} /> {t(AVAILABILITY_LABEL[s])}
        </span>
      ))}
    </div>
  )
}
