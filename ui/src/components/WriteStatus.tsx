import { useQuery } from '@tanstack/react-query'
import { outboxKeys } from '../api/queries.ts'
import { useEffect, useRef } from 'react'
import { combine, getEntry, outcomeOf, type WriteOutcome, type WriteState } from '../api/writes.ts'
import { t, type MessageKey } from '../i18n/index.ts'
import { signal } from '../lib/feedback.ts'
import { sentAs, useFate } from '../offline/queue.ts'

/** `line` sits under an office form; `card` is the handheld's block of large text, with a
 * sound when Exact Online decides after the first answer (the operator's eyes are on the goods). */
export type WriteLook = 'line' | 'card'

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

/** The card says what happened in a whole sentence, since it stands alone on a handheld. */
const CARD_LABEL: Record<WriteState, MessageKey> = {
  kept: 'offline.keptState',
  pending: 'scanning.statePending',
  sending: 'scanning.stateSending',
  delivered: 'scanning.stateDelivered',
  failed: 'scanning.stateFailed',
}

const CARD_TONE: Record<WriteState, string> = {
  kept: 'bg-slate-200 text-slate-900',
  pending: 'bg-amber-50 text-amber-900',
  sending: 'bg-amber-50 text-amber-900',
  delivered: 'bg-emerald-50 text-emerald-900',
  failed: 'bg-red-50 text-red-800',
}

const settled = (s: WriteState) => s === 'delivered' || s === 'failed'

/**
 * Follows a write in the outbox until Exact Online delivered or refused it; a booking kept on
 * this device first until it is sent.
 */
export function useWriteState(given: WriteOutcome, everyMs = 2_000): Pick<WriteOutcome, 'state' | 'message'> {
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
      return s === 'pending' || s === 'sending' ? everyMs : false
    },
  })
  return followed.data ? combine(followed.data) : outcome
}

/**
 * The outbox state of one write (queued, sending, delivered, refused with the provider's
 * message; a queued one with why it waits, which is no failure); `onDelivered` runs once when
 * it arrives.
 */
export function WriteStatus({
  outcome,
  what,
  onDelivered,
  look = 'line',
}: {
  outcome: WriteOutcome
  what?: string
  onDelivered?: () => void
  look?: WriteLook
}) {
  const card = look === 'card'
  // a handheld's operator waits on it, so it is asked every second
  const { state, message } = useWriteState(outcome, card ? 1_000 : 2_000)
  const told = useRef(false)
  // no sound for what the first answer already said: the booking's own signal covered it
  const heard = useRef(settled(outcome.state))
  useEffect(() => {
    if (card && settled(state) && !heard.current) signal(state === 'delivered')
    if (settled(state)) heard.current = true
    if (state === 'delivered' && !told.current) {
      told.current = true
      onDelivered?.()
    }
  }, [state, onDelivered, card])
  const waiting = message && (state === 'pending' || state === 'sending') && (
    <span className={card ? 'block text-sm' : 'text-slate-600'} data-testid="write-waiting">
      {message}
    </span>
  )
  if (card)
    return (
      <p
        role={state === 'failed' ? 'alert' : 'status'}
        data-testid="write-status"
        data-state={state}
        className={`rounded-md p-3 text-base ${CARD_TONE[state]}`}
      >
        {what && <span className="block font-medium">{what}</span>}
        {t(CARD_LABEL[state])}
        {state === 'failed' && message ? `: ${message}` : ''}
        {waiting}
      </p>
    )
  return (
    <p role={state === 'failed' ? 'alert' : 'status'} data-testid="write-status" data-state={state} className="flex flex-wrap items-center gap-2 text-sm">
      {what && <span className="font-medium">{what}</span>}
      <span className={`rounded px-2 py-0.5 text-xs font-semibold ${STYLE[state]}`}>{t(LABEL[state])}</span>
      {message && state === 'failed' && <span className="text-red-800">{message}</span>}
      {waiting}
    </p>
  )
}
