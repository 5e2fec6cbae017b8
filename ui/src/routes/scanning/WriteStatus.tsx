import { useQuery } from '@tanstack/react-query'
import { outboxKeys } from '../../api/queries.ts'
import { useEffect, useRef } from 'react'
import { getEntry } from '../../api/scanning.ts'
import type { BookResult, WriteState } from '../../api/writes.ts'
import { t, type MessageKey } from '../../i18n/index.ts'
import { signal } from '../../lib/feedback.ts'
import { sentAs, useFate } from '../../offline/queue.ts'

const LABEL: Record<WriteState, MessageKey> = {
  kept: 'offline.keptState',
  pending: 'scanning.statePending',
  sending: 'scanning.stateSending',
  delivered: 'scanning.stateDelivered',
  failed: 'scanning.stateFailed',
}

const TONE: Record<WriteState, string> = {
  kept: 'bg-slate-200 text-slate-900',
  pending: 'bg-amber-50 text-amber-900',
  sending: 'bg-amber-50 text-amber-900',
  delivered: 'bg-emerald-50 text-emerald-900',
  failed: 'bg-red-50 text-red-800',
}

/**
 * The outbox state of a write: its last entry is followed until Exact Online delivered or
 * refused it, with a sound when that is decided after the first answer. A booking kept on this
 * device shows so until it is sent, then the same.
 */
export function WriteStatus({ result: given, onSettled }: { result: BookResult; onSettled?: (ok: boolean) => void }) {
  // a booking kept on this device shows so until it is sent, then what it became
  const fate = useFate(given.key ?? '')
  const result: BookResult = (given.state === 'kept' ? sentAs(fate) : null) ?? given
  const last = result.entries[result.entries.length - 1]
  const done = (s: WriteState | undefined) => s === 'delivered' || s === 'failed'
  const entry = useQuery({
    queryKey: outboxKeys.entry(last?.id),
    queryFn: () => getEntry(last.id),
    enabled: !!last && !done(result.state),
    refetchInterval: (q) => (done(q.state.data?.state) ? false : 1000),
  })
  const state: WriteState = entry.data?.state ?? result.state
  const error = entry.data?.error ?? result.error
  const told = useRef(done(result.state))
  useEffect(() => {
    if (!done(state)) return
    if (!told.current) signal(state === 'delivered')
    told.current = true
    onSettled?.(state === 'delivered')
  }, [state, onSettled])
  return (
    <p role="status" data-testid="write-state" data-state={state} className={`rounded-md p-3 text-base ${TONE[state]}`}>
      {t(LABEL[state])}
      {state === 'failed' && error ? `: ${error}` : ''}
      {(state === 'pending' || state === 'sending') && error && (
        <span className="block text-sm" data-testid="write-waiting">
          {error}
        </span>
      )}
    </p>
  )
}
