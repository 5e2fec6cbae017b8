import { useState } from 'react'
import { t, tCount } from '../i18n/index.ts'
import { useIsWide } from '../lib/media.ts'
import { SyncIcon } from './icons.tsx'
import { useDropdown } from './useDismiss.ts'
import { progressOf, toastsInView, type Toast } from '../state/toasts.ts'

type Props = { toasts: Toast[]; onToggle: (name: string) => void }

/**
 * "Refreshing {name}" cards with a progress bar and a countdown; a click collapses one. A few
 * show at once (the newest); a line above them counts the older ones and shows them on a click.
 * Under 768 px they sit behind a button in the header (SyncSummary): floating over the page they
 * covered the handheld's forms.
 */
export function ToastList(props: Props) {
  return useIsWide() ? <Cards {...props} className="fixed right-4 bottom-4 z-30 max-h-[60dvh] w-80" /> : <SyncSummary {...props} />
}

/**
 * The handheld's sync progress: one header button with the number of tables in progress and a
 * bar of their progress together; a tap opens the cards over the page, until tapped again.
 */
function SyncSummary(props: Props) {
  const { toasts } = props
  const { open, close, toggle, area, trigger } = useDropdown()
  if (toasts.length === 0 && open) close()

  if (toasts.length === 0) return null
  const progress = toasts.reduce((sum, toast) => sum + progressOf(toast), 0) / toasts.length
  const failed = toasts.some((toast) => toast.error)
  return (
    <div ref={area}>
      <button
        ref={trigger}
        type="button"
        aria-expanded={open}
        aria-label={tCount('toast.summary', toasts.length)}
        data-testid="sync-summary"
        onClick={toggle}
        className="relative flex h-11 min-w-11 items-center justify-center rounded px-2 text-sm font-semibold tabular-nums hover:bg-white/10"
      >
        <SyncIcon />
        <span aria-hidden="true" className="ml-1">
          {toasts.length}
        </span>
        <span aria-hidden="true" className="absolute inset-x-1 bottom-1 h-1 overflow-hidden rounded bg-white/25">
          <span className={`block h-full ${failed ? 'bg-red-400' : 'bg-white'}`} style={{ width: `${Math.round(progress * 100)}%` }} />
        </span>
      </button>
      {open && <Cards {...props} className="absolute inset-x-2 top-full z-40 mt-1 max-h-[70dvh] rounded-lg bg-slate-200 p-2 shadow-xl" />}
    </div>
  )
}

function Cards({ toasts, onToggle, className }: Props & { className: string }) {
  const [showAll, setShowAll] = useState(false)
  // the next sync starts with a few again
  if (toasts.length === 0 && showAll) setShowAll(false)
  if (toasts.length === 0) return null
  const { shown, more } = toastsInView(toasts, showAll)
  return (
    <ul aria-label={t('toast.list')} aria-live="polite" className={`flex flex-col gap-2 overflow-y-auto text-slate-900 ${className}`}>
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
                  {toast.error ? toast.error : toast.done ? t('toast.done') : toast.paused ? t('toast.paused') : tCount('toast.remaining', toast.countdown)}
                </span>
              </>
            )}
          </button>
        </li>
      ))}
    </ul>
  )
}
