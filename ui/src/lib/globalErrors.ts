// Errors nobody handled: a promise that failed with no catch, an exception outside React's
// rendering. Each is logged and told to the user as the catalogue's message (spec §8) in a toast;
// the same message again while its toast shows counts up instead of stacking.
import { isCriticalError } from '../api/client.ts'
import { catalogueEntry, GENERIC_CODE, type CatalogueEntry } from './errors.ts'

/** How long a notice shows: the spec's toast countdown (§9). */
export const NOTICE_MS = 20_000
/** At most this many notices at once; the oldest makes room. */
export const MAX_NOTICES = 3

export interface ErrorNotice extends CatalogueEntry {
  id: number
  /** How often it happened while shown. */
  count: number
}

type Listener = () => void

/** The notices shown, with their timers. One store per page (`errorNotices`); tests make their own. */
export class ErrorNotices {
  private notices: readonly ErrorNotice[] = []
  private readonly listeners = new Set<Listener>()
  private readonly timers = new Map<number, ReturnType<typeof setTimeout>>()
  private nextId = 1

  list = (): readonly ErrorNotice[] => this.notices

  subscribe = (listener: Listener): (() => void) => {
    this.listeners.add(listener)
    return () => void this.listeners.delete(listener)
  }

  /** Shows `entry`, or counts it on the notice already showing it. */
  add(entry: CatalogueEntry): void {
    const same = this.notices.find((n) => n.message === entry.message && n.code === entry.code)
    if (same) {
      this.set(this.notices.map((n) => (n === same ? { ...n, count: n.count + 1 } : n)))
      this.schedule(same.id)
      return
    }
    const notice: ErrorNotice = { ...entry, id: this.nextId++, count: 1 }
    const kept = this.notices.slice(-(MAX_NOTICES - 1))
    for (const dropped of this.notices.slice(0, this.notices.length - kept.length)) this.clearTimer(dropped.id)
    this.set([...kept, notice])
    this.schedule(notice.id)
  }

  dismiss = (id: number): void => {
    this.clearTimer(id)
    this.set(this.notices.filter((n) => n.id !== id))
  }

  /** Forgets every notice (a session that ends takes its errors with it). */
  clear(): void {
    for (const id of this.timers.keys()) this.clearTimer(id)
    this.set([])
  }

  private schedule(id: number) {
    this.clearTimer(id)
    this.timers.set(
      id,
      setTimeout(() => this.dismiss(id), NOTICE_MS),
    )
  }

  private clearTimer(id: number) {
    const timer = this.timers.get(id)
    if (timer !== undefined) clearTimeout(timer)
    this.timers.delete(id)
  }

  private set(next: readonly ErrorNotice[]) {
    this.notices = next
    for (const l of this.listeners) l()
  }
}

/** The page's notices, shown by ErrorToasts. */
export const errorNotices = new ErrorNotices()

/**
 * Logs `error` and tells the user. A critical error is left to the session, which ends and says
 * so on Home; a cancelled call tells nothing.
 */
export function reportError(error: unknown, notices: ErrorNotices = errorNotices, log: Pick<Console, 'warn' | 'error'> = console): void {
  const entry = catalogueEntry(error)
  if (!entry) {
    log.warn('a cancelled call nobody waited for', error)
    return
  }
  // a refused or failed call is expected in the field; anything else is a bug to look into
  if (entry.code !== GENERIC_CODE) log.warn('unhandled error', entry.code, error)
  else log.error('unhandled error', error)
  if (isCriticalError(error)) return
  notices.add(entry)
}

/** The browser's own complaints that are no error of ours (nothing failed, or no detail to tell). */
const NOT_OURS = /^(ResizeObserver loop|Script error\.?$)/

/**
 * Listens for failed promises nobody caught and for uncaught exceptions on `target`; answers the
 * function that stops listening.
 */
export function installGlobalErrorHandler(
  target: Pick<Window, 'addEventListener' | 'removeEventListener'> = window,
  report: (error: unknown) => void = reportError,
): () => void {
  const onRejection = (event: Event) => {
    // we log it ourselves, with what it means
    event.preventDefault()
    report((event as PromiseRejectionEvent).reason)
  }
  const onError = (event: Event) => {
    const e = event as ErrorEvent
    if (e.error == null && NOT_OURS.test(e.message ?? '')) {
      console.warn('browser note', e.message)
      return
    }
    event.preventDefault()
    report(e.error ?? new Error(e.message))
  }
  target.addEventListener('unhandledrejection', onRejection)
  target.addEventListener('error', onError)
  return () => {
    target.removeEventListener('unhandledrejection', onRejection)
    target.removeEventListener('error', onError)
  }
}
