import { CogIcon } from '../../components/icons.tsx'
import { useDropdown } from '../../components/useDismiss.ts'
import { t } from '../../i18n/index.ts'
import { SCALES } from './logic/timeline.ts'

/** The planning's cog: hide weekends (an organization preference) and the scale of the columns. */
export function SettingsCog({
  weekendsHidden,
  savingWeekends,
  weekendsError,
  onWeekends,
  scale,
  onScale,
}: {
  weekendsHidden: boolean
  savingWeekends: boolean
  weekendsError: string | null
  onWeekends: (hidden: boolean) => void
  scale: number
  onScale: (scale: number) => void
}) {
  const { open, toggle, area, trigger } = useDropdown()
  return (
    <div ref={area} className="relative">
      <button
        ref={trigger}
        type="button"
        aria-expanded={open}
        aria-label={t('planning.settings')}
        title={t('planning.settings')}
        onClick={toggle}
        className="flex h-11 w-11 items-center justify-center rounded border border-slate-300 bg-white hover:bg-slate-100 focus:ring-2 focus:ring-sky-600 focus:outline-none"
      >
        <CogIcon />
      </button>
      {open && (
        <div
          role="group"
          aria-label={t('planning.settings')}
          className="absolute right-0 z-40 mt-1 flex w-64 flex-col gap-3 rounded-lg border border-slate-200 bg-white p-4 shadow-lg"
        >
          <label className="flex min-h-11 items-center gap-3 text-sm">
            <input type="checkbox" className="h-5 w-5" checked={!weekendsHidden} onChange={(e) => onWeekends(!e.target.checked)} />
            {t('planning.showWeekends')}
          </label>
          {savingWeekends && (
            <p role="status" className="text-xs text-slate-500">
              {t('planning.saving')}
            </p>
          )}
          {weekendsError && (
            <p role="alert" className="text-xs text-red-700">
              {weekendsError}
            </p>
          )}
          <label className="flex flex-col gap-1 text-sm">
            {t('planning.scale')}
            <select value={scale} onChange={(e) => onScale(Number(e.target.value))} className="min-h-11 rounded border border-slate-300 px-2">
              {SCALES.map((s) => (
                <option key={s} value={s}>
                  {Math.round(s * 100)}%
                </option>
              ))}
            </select>
          </label>
        </div>
      )}
    </div>
  )
}
