// Sync toasts from the server's event stream (spec §2, §3 Toast, §4 countdown).
import { useEffect, useReducer } from 'react'
import { useLanguage, type Language } from '../i18n/index.ts'

/** One `event: toast` frame of GET /api/v1/events. */
export interface ToastEvent {
  table?: string
  name: string
  message: string
  total: number
  remaining: number
  done: boolean
  paused: boolean
  error?: string | null
}

export interface Toast extends ToastEvent {
  /** Seconds shown as "N seconds remaining". */
  countdown: number
  collapsed: boolean
}

/** The countdown starts at 20 s and starts over at 0 while the table is not done (spec §4, §9). */
export const COUNTDOWN_SECONDS = 20
/** A finished toast stays this long, so the user sees it end. */
export const DONE_LINGER_MS = 4_000

export function tickCountdown(seconds: number, done: boolean): number {
  if (done) return 0
  return seconds > 0 ? seconds - 1 : COUNTDOWN_SECONDS
}

/** Share of the table received, 0..1; unknown totals show an empty bar. */
export function progressOf(t: Pick<ToastEvent, 'total' | 'remaining' | 'done'>): number {
  if (t.done) return 1
  if (t.total <= 0) return 0
  return Math.min(1, Math.max(0, (t.total - t.remaining) / t.total))
}

export type ToastAction =
  { type: 'event'; event: ToastEvent } | { type: 'tick' } | { type: 'toggle'; name: string } | { type: 'remove'; name: string } | { type: 'clear' }

/** Toasts keyed by endpoint name, in order of first appearance. */
export function toastsReducer(toasts: Toast[], action: ToastAction): Toast[] {
  switch (action.type) {
    case 'event': {
      const i = toasts.findIndex((t) => t.name === action.event.name)
      if (i < 0) return [...toasts, { ...action.event, countdown: COUNTDOWN_SECONDS, collapsed: false }]
      const next = [...toasts]
      next[i] = { ...toasts[i], ...action.event }
      return next
    }
    case 'tick':
      return toasts.map((t) => ({ ...t, countdown: tickCountdown(t.countdown, t.done) }))
    case 'toggle':
      return toasts.map((t) => (t.name === action.name ? { ...t, collapsed: !t.collapsed } : t))
    case 'remove':
      // only a finished toast: the same table may have started again meanwhile
      return toasts.filter((t) => !(t.name === action.name && t.done))
    case 'clear':
      return []
  }
}

/**
 * At most this many toasts show at once: a full sync has a dozen tables, and a stack of them
 * would cover the right of the screen. The newest show (the table being synced is among them),
 * in the order they came, so none jumps; the older ones are counted in one line.
 */
export const VISIBLE_TOASTS = 3

/** The toasts to show, and how many older ones are left out. */
export function toastsInView(toasts: Toast[], showAll: boolean): { shown: Toast[]; more: number } {
  const shown = showAll ? toasts : toasts.slice(-VISIBLE_TOASTS)
  return { shown, more: toasts.length - shown.length }
}

export function parseToast(data: string): ToastEvent | null {
  try {
    const v = JSON.parse(data) as Partial<ToastEvent>
    if (typeof v.name !== 'string') return null
    return {
      table: v.table,
      name: v.name,
      message: typeof v.message === 'string' ? v.message : '',
      total: Number(v.total) || 0,
      remaining: Number(v.remaining) || 0,
      done: !!v.done,
      paused: !!v.paused,
      error: v.error ?? null,
    }
  } catch {
    return null
  }
}

/**
 * The event stream in the UI's language: an EventSource cannot send `Accept-Language`, so the
 * language goes in the query (the server names the tables in it).
 */
export function eventsUrl(language: Language): string {
  return `/api/v1/events?lang=${language}`
}

/**
 * Listens to the server's toasts while `enabled`; `onDone` runs when a table finishes
 * (the caller refreshes what it shows).
 */
export function useSyncToasts(enabled: boolean, onDone: () => void) {
  const [toasts, dispatch] = useReducer(toastsReducer, [])

  const language = useLanguage()
  useEffect(() => {
    if (!enabled) return
    // a stream speaks one language: the toasts of the last one go, the next event brings them back
    dispatch({ type: 'clear' })
    const source = new EventSource(eventsUrl(language))
    const timers = new Set<ReturnType<typeof setTimeout>>()
    source.addEventListener('toast', (e) => {
      const event = parseToast((e as MessageEvent<string>).data)
      if (!event) return
      dispatch({ type: 'event', event })
      if (event.done) {
        onDone()
        const timer = setTimeout(() => {
          timers.delete(timer)
          dispatch({ type: 'remove', name: event.name })
        }, DONE_LINGER_MS)
        timers.add(timer)
      }
    })
    return () => {
      source.close()
      timers.forEach(clearTimeout)
    }
  }, [enabled, onDone, language])

  const hasToasts = toasts.length > 0
  useEffect(() => {
    if (!hasToasts) return
    const id = setInterval(() => dispatch({ type: 'tick' }), 1_000)
    return () => clearInterval(id)
  }, [hasToasts])

  return { toasts, toggle: (name: string) => dispatch({ type: 'toggle', name }) }
}
