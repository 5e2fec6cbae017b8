import type { OutboxEntry } from '../api/outbox.ts'

/** A refused entry's message is Exact's refusal; an open entry's says why it waits (no failure). */
export function EntryMessage({ entry }: { entry: Pick<OutboxEntry, 'state' | 'error'> }) {
  if (!entry.error) return null
  if (entry.state === 'failed') return <span className="text-red-800">{entry.error}</span>
  if (entry.state === 'delivered') return <span className="text-slate-600">{entry.error}</span>
  return (
    <span className="text-amber-900" data-testid="entry-waiting">
      {entry.error}
    </span>
  )
}
