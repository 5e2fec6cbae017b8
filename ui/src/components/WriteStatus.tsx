import { useQuery } from '@tanstack/react-query'
import { outboxKeys } from '../api/queries.ts'
import { useEffect, useRef } from 'react'
import { combine, getEntry, outcomeOf, type WriteOutcome, type WriteState } from '../api/writes.ts'
import { t, type MessageKey } from '../i18n/index.ts'
import { sentAs, useFate } from '../offline/queue.ts'

const LABEL: Record<WriteState, MessageKey> = {
  kept: 'offline.keptState',
  pending: 'write.queued',
  sending: 'mng.state.sending',
  delivered: 'mng.state.delivered',
  failed: 'mng.state.failed',
}

const STYLE: Record<WriteState, string> = {
  kept: 'bg-slate-200 text-slate-900',
  pending: 'bg-amber-100 text-amber-900',
  sending: 'bg-sky-100 text-sky-900',
  delivered: 'bg-emerald-100 text-emerald-900',
  failed: 'bg-red-100 text-red-900',
}

/**
 * Follows a write in the outbox until Exact Online delivered or refused it; a booking kept on
 * this device first until it is sent.
 */
export function useWriteState(given: WriteOutcome): Pick<WriteOutcome, 'state' | 'message'> {
  // a booking kept on this device: why it waits, then what it became once sent
  const fate = useFate(given.key ?? '')
  const sent = given.state === 'kept' ? sentAs(fate) : null
  const outcome = sent ? outcomeOf(sent) : fate.status === 'waiting' && given.state === 'kept' ? { ...given, message: fate.booking.lastError } : given
  const open = outcome.state === 'pending' || outcome.state === 'sending'
  const followed = useQuery({
    queryKey: outboxKeys.entries(outcome.entryIds),
    queryFn: () => Promise.all(outcome.entryIds.map(getEntry)),
    enabled: open && outcome.entryIds.length > 0,
    refetchInterval: (q) => {
      const s = q.state.data ? combine(q.state.data).state : 'pending'
      return s === 'pending' || s === 'sending' ? 2_000 : false
    },
  })
  return followed.data ? combine(followed.data) : outcome
}

/**
 * The outbox state of one write (queued, sending, delivered, refused with the provider's
 * message; a queued one with why it waits, which is no failure); `onDelivered` runs once when
 * it arrives.
 */
export function WriteStatus({ outcome, what, onDelivered }: { outcome: WriteOutcome; what: string; onDelivered?: () => void }) {
  const { state, message } = useWriteState(outcome)
  const told = useRef(false)
  useEffect(() => {
    if (state === 'delivered' && !told.current) {
      told.current = true
      onDelivered?.()
    }
  }, [state, onDelivered])
  return (
    <p role={state === 'failed' ? 'alert' : 'status'} data-testid="write-status" data-state={state} className="flex flex-wrap items-center gap-2 text-sm">
      <span className="font-medium">{what}</span>
      <span className={`rounded px-2 py-0.5 text-xs font-semibold ${STYLE[state]}`}>{t(LABEL[state])}</span>
      {message && state === 'failed' && <span className="text-red-800">{message}</span>}
      {message && (state === 'pending' || state === 'sending') && (
        <span className="text-slate-600" data-testid="write-waiting">
          {message}
        </span>
      )}
    </p>
  )
}
