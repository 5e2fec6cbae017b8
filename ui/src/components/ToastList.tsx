import { t, tCount } from '../i18n/index.ts'
import { progressOf, type Toast } from '../state/toasts.ts'

/** "Refreshing {name}" cards with a progress bar and a countdown; a click collapses one. */
export function ToastList({ toasts, onToggle }: { toasts: Toast[]; onToggle: (name: string) => void }) {
  if (toasts.length === 0) return null
  return (
    <ul aria-label={t('toast.list')} aria-live="polite" className="fixed right-4 bottom-4 z-30 flex w-80 flex-col gap-2">
      {toasts.map((toast) => (
        <li key={toast.name}>
          <button
            type="button"
            aria-expanded={!toast.collapsed}
            onClick={() => onToggle(toast.name)}
            className="w-full rounded-lg bg-white p-3 text-left text-sm shadow-lg ring-1 ring-slate-200"
          >
            <span className="block font-medium">{t('toast.refreshing', { name: toast.name })}</span>
            {!toast.collapsed && (
              <>
                <progress
                  value={progressOf(toast)}
                  max={1}
                  className={`mt-2 block h-2 w-full overflow-hidden rounded bg-slate-200 [&::-webkit-progress-bar]:bg-slate-200 ${
                    toast.error
                      ? '[&::-moz-progress-bar]:bg-red-600 [&::-webkit-progress-value]:bg-red-600'
                      : '[&::-moz-progress-bar]:bg-sky-700 [&::-webkit-progress-value]:bg-sky-700'
                  }`}
                />
                <span className="mt-1 block text-slate-600">
                  {toast.error
                    ? toast.error
                    : toast.done
                      ? t('toast.done')
                      : toast.paused
                        ? t('toast.paused')
                        : tCount('toast.remaining', toast.countdown)}
                </span>
              </>
            )}
          </button>
        </li>
      ))}
    </ul>
  )
}
