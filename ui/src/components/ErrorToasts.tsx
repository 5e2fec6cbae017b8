import { useSyncExternalStore } from 'react'
import { t, tCount } from '../i18n/index.ts'
import { errorNotices, type ErrorNotices } from '../lib/globalErrors.ts'

/**
 * Errors no screen handled, as the catalogue's message and code (spec §8): at the top, clear of
 * the sync toasts at the bottom; each goes by itself after the toast countdown or on a click.
 */
export function ErrorToasts({ store = errorNotices }: { store?: ErrorNotices }) {
  const notices = useSyncExternalStore(store.subscribe, store.list)
  if (notices.length === 0) return null
  return (
    <ul aria-label={t('error.list')} className="fixed inset-x-2 top-2 z-40 flex flex-col gap-2 sm:inset-x-auto sm:right-4 sm:w-96" data-testid="error-toasts">
      {notices.map((n) => (
        <li key={n.id} role="alert" className="flex items-start gap-3 rounded-lg bg-white p-3 text-sm shadow-lg ring-1 ring-red-200">
          <span className="flex-1 text-red-900">
            {n.message} ({n.code}){n.count > 1 && <span className="block text-xs text-slate-600">{tCount('error.repeated', n.count)}</span>}
          </span>
          <button
            type="button"
            onClick={() => store.dismiss(n.id)}
            className="min-h-8 rounded px-2 text-slate-600 hover:bg-slate-100 focus:ring-2 focus:ring-sky-600 focus:outline-none"
          >
            {t('error.dismiss')}
          </button>
        </li>
      ))}
    </ul>
  )
}
