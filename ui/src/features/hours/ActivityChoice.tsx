import { t } from '../../i18n/index.ts'
import type { Activity } from './logic.ts'

/** Setup or run hours, as two big toggle buttons. */
export function ActivityChoice({ value, onChange }: { value: Activity; onChange: (a: Activity) => void }) {
  return (
    <fieldset className="flex flex-col gap-1">
      <legend className="text-sm font-medium text-slate-700">{t('hours.activity')}</legend>
      <div className="grid grid-cols-2 gap-2">
        {(['setup', 'run'] as const).map((a) => (
          <button
            type="button"
            key={a}
            aria-pressed={value === a}
            onClick={() => onChange(a)}
            className={`min-h-11 rounded border px-3 py-2 font-medium ${value === a ? 'border-sky-800 bg-sky-800 text-white' : 'border-slate-300 bg-white hover:bg-slate-50'}`}
          >
            {t(a === 'setup' ? 'hours.setup' : 'hours.run')}
          </button>
        ))}
      </div>
    </fieldset>
  )
}
