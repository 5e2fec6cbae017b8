// The product's own errors (spec §2, §8): a message and a code, a handler of their own and a
// default redirect. The error boundary runs the handler, shows message and code, then goes to
// the redirect (or where any uncaught error goes).
import { ApiError, isAbort, TIMEOUT_CODE } from '../api/client.ts'
import { t } from '../i18n/index.ts'

/** The catalogue's generic code. */
export const GENERIC_CODE = '-'

export class CustomError extends Error {
  readonly code: string
  /** Where to go afterwards; the uncaught-error fallback when absent. */
  readonly redirectTo?: string
  /** Runs once when the error reaches the boundary (e.g. drop a cache). */
  readonly handle?: () => void

  constructor(message: string, options: { code?: string; redirectTo?: string; handle?: () => void } = {}) {
    super(message)
    this.name = 'CustomError'
    this.code = options.code ?? GENERIC_CODE
    this.redirectTo = options.redirectTo
    this.handle = options.handle
  }
}

export function isCustomError(e: unknown): e is CustomError {
  return e instanceof CustomError
}

/** What the boundary shows and where it goes. */
export function errorOutcome(e: unknown, fallback: string): { title: 'custom' | 'generic'; detail: string | null; redirect: string } {
  if (isCustomError(e)) return { title: 'custom', detail: `${e.message} (${e.code})`, redirect: e.redirectTo ?? fallback }
  // a failed call says the catalogue's words; a fault of the UI itself its own (what the
  // catalogue's unknown error asks to pass on to the programmer)
  const known = e instanceof ApiError || isBrowserNetworkError(e) ? catalogueEntry(e) : null
  if (known) return { title: 'generic', detail: `${known.message} (${known.code})`, redirect: fallback }
  return { title: 'generic', detail: e instanceof Error ? e.message : null, redirect: fallback }
}

/** The browsers' own words for a fetch that never got an answer (Chromium, Firefox, Safari). */
const FETCH_FAILURE = /^(Failed to fetch|NetworkError when attempting to fetch resource\.?|Load failed|network error|The network connection was lost\.?)$/i

/** A raw fetch that failed on the way (one made outside the API client). */
export function isBrowserNetworkError(e: unknown): boolean {
  return e instanceof TypeError && FETCH_FAILURE.test(e.message.trim())
}

/** The catalogue's message and code (spec §8) for an error, as a user is told it. */
export interface CatalogueEntry {
  message: string
  code: string
}

/**
 * What a user is told of an error no screen handled: the server's (or the client's) catalogue
 * answer, the catalogue's network message for a raw fetch failure, else the catalogue's unknown
 * error. Null for a cancelled call ("no impact or is expected to occur").
 */
export function catalogueEntry(e: unknown): CatalogueEntry | null {
  if (isAbort(e)) return null
  if (e instanceof ApiError || isCustomError(e)) return { message: e.message, code: e.code }
  if (isBrowserNetworkError(e) || (e instanceof DOMException && e.name === 'TimeoutError')) {
    return { message: t('error.network'), code: TIMEOUT_CODE }
  }
  return { message: t('error.unknown'), code: GENERIC_CODE }
}

/**
 * The sentence a screen shows for a failure it reports itself: the catalogue's words (the
 * server's answer, or the network message for a call that got none), never a browser's or a
 * program's own text ("TypeError: …"). Empty for nothing and for a cancelled call.
 */
export function userMessage(e: unknown): string {
  if (e === null || e === undefined) return ''
  return catalogueEntry(e)?.message ?? ''
}
