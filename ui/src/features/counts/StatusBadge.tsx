import { t, type MessageKey } from '../../i18n/index.ts'
import type { CountStatus } from './logic.ts'

const LOOK: Record<CountStatus, string> = {
  counting: 'bg-sky-100 text-sky-900',
  sending: 'bg-amber-100 text-amber-900',
  draft: 'bg-slate-200 text-slate-800',
  processed: 'bg-emerald-100 text-emerald-900',
  refused: 'bg-red-100 text-red-800',
}

export const statusKey = (s: CountStatus): MessageKey => `counts.status.${s}`

/** Where a count stands, in a word. */
export function StatusBadge({ status }: { status: CountStatus }) {
  return (
    <span className={`rounded px-2 py-0.5 text-sm font-medium ${LOOK[status]}`} data-testid="count-status-badge">
      {t(statusKey(status))}
    </span>
  )
}
