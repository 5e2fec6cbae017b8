import { useState } from 'react'
import { t, tCount } from '../i18n/index.ts'
import { progressOf, toastsInView, type Toast } from '../state/toasts.ts'

/**
 * "Refreshing {name}" cards with a progress bar and a countdown; a click collapses one. A few
 * show at once (the newest); a line above them counts the older ones and shows them on a click.
 */
export function ToastList({ toasts, onToggle }: { toasts: Toast[]; onToggle: (name: string) => void }) {
  const [showAll, setShowAll] = useState(false)
  // the next sync starts with a few again
  if (toasts.length === 0 && showAll) setShowAll(false)
  if (toasts.length === 0) return null
  const { shown, more } = toastsInView(toasts, showAll)
  return (
    <ul
      aria-label={t('toast.list')}
      aria-live="polite"
      className="fixed inset-x-2 bottom-2 z-30 flex max-h-[60dvh] flex-col gap-2 overflow-y-auto sm:inset-x-auto sm:right-4 sm:bottom-4 sm:w-80"
    >
      {(more > 0 || showAll) && (
        <li>
          <button
            type="button"
            onClick={() => setShowAll(!showAll)}
            className="w-full rounded-lg bg-white px-3 py-2 text-left text-sm text-sky-800 underline shadow-lg ring-1 ring-slate-200"
          >
            {showAll ? t('toast.fewer') : tCount('toast.more', more)}
          </button>
        </li>
      )}
      {shown.map((toast) => (
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
