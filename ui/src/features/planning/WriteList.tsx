import { t, type MessageKey } from '../../i18n/index.ts'
import { formatDay } from '../../lib/dateTime.ts'
import type { ShopOrderChange, ShownChange } from './api.ts'
import type { WriteRecord, WriteStatus } from './useShopOrderWrites.ts'

const STATUS: Record<WriteStatus, { label: MessageKey; className: string }> = {
  sending: { label: 'planning.write.sending', className: 'bg-sky-50 text-sky-900 border-sky-200' },
  pending: { label: 'planning.write.pending', className: 'bg-amber-50 text-amber-900 border-amber-300' },
  delivered: { label: 'planning.write.delivered', className: 'bg-emerald-50 text-emerald-900 border-emerald-300' },
  failed: { label: 'planning.write.failed', className: 'bg-red-50 text-red-900 border-red-300' },
}

/** What a change was, in words: "start Mon, 23 Nov 2026, planned Wed, 25 Nov 2026", "on hold: yes". */
export function describeChange(c: ShopOrderChange, shown: ShownChange = {}): string {
  const parts: string[] = []
  const yesNo = (v: number) => t(v ? 'planning.yes' : 'planning.no')
  if (c.PlannedStartDate) parts.push(t('planning.change.start', { date: formatDay(c.PlannedStartDate) }))
  if (c.PlannedDate) parts.push(t('planning.change.end', { date: formatDay(c.PlannedDate) }))
  if (c.IsReleased !== undefined) parts.push(`${t('planning.released')}: ${yesNo(c.IsReleased)}`)
  if (c.IsOnHold !== undefined) parts.push(`${t('planning.onHold')}: ${yesNo(c.IsOnHold)}`)
  if (c.IsInPlanning !== undefined) parts.push(`${t('planning.inPlanning')}: ${yesNo(c.IsInPlanning)}`)
  if (c.Notes !== undefined) parts.push(t('planning.change.notes'))
  if (c.SelectionCode !== undefined)
    parts.push(`${t('planning.modal.selectionCode')}: ${c.SelectionCode === null ? t('planning.change.none') : (shown.SelectionCodeCode ?? c.SelectionCode)}`)
  if (c.YourRef !== undefined) parts.push(`${t('planning.modal.yourRef')}: ${c.YourRef || t('planning.change.none')}`)
  if (c.ProductionLeadDays !== undefined) parts.push(`${t('planning.modal.leadDays')}: ${c.ProductionLeadDays}`)
  return parts.join(', ')
}

/** The latest writes with their state; a refusal keeps Exact's message until dismissed. */
export function WriteList({ writes, onDismiss }: { writes: WriteRecord[]; onDismiss: (key: number) => void }) {
  if (writes.length === 0) return null
  return (
    <ul aria-label={t('planning.write.list')} className="flex flex-col gap-1" data-testid="planning-writes">
      {writes.map((w) => {
        const s = STATUS[w.status]
        return (
          <li
            key={w.key}
            role={w.status === 'failed' ? 'alert' : 'status'}
            data-state={w.status}
            className={`flex flex-wrap items-center gap-2 rounded border px-3 py-1.5 text-sm ${s.className}`}
          >
            <strong className="font-mono">{w.number}</strong>
            <span>{describeChange(w.change, w.shown)}</span>
            <span className="font-semibold">{t(s.label)}</span>
            {w.error && w.status === 'failed' && <span>: {w.error}</span>}
            {w.error && (w.status === 'pending' || w.status === 'sending') && <span data-testid="write-waiting">{w.error}</span>}
            {(w.status === 'delivered' || w.status === 'failed') && (
              <button
                type="button"
                onClick={() => onDismiss(w.key)}
                aria-label={t('planning.write.dismiss')}
                className="ml-auto min-h-8 min-w-8 rounded px-2 hover:bg-black/5 focus:ring-2 focus:ring-sky-600 focus:outline-none"
              >
                ×
              </button>
            )}
          </li>
        )
      })}
    </ul>
  )
}
