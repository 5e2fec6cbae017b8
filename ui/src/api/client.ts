// One way to call the server: JSON in and out, the session cookie, and the server's
// `{"error": {"code", "message"}}` turned into an ApiError.
import { getLanguage, t } from '../i18n/index.ts'

export class ApiError extends Error {
  readonly status: number
  readonly code: string

  constructor(status: number, code: string, message: string) {
    super(message)
    this.name = 'ApiError'
    this.status = status
    this.code = code
  }
}

/** Status 0: the request never got an answer (network down, server gone). */
export const NETWORK_ERROR_STATUS = 0

/**
 * The catalogue's code for a call that timed out or met a network issue (spec §8, the server's
 * `timeout`): a client that cannot reach the server gets the same code and message.
 */
export const TIMEOUT_CODE = 'timeout'

/** The catalogue's answer for a call that never got an answer from this server (it tells `onReachability`). */
export function networkError(status = NETWORK_ERROR_STATUS): ApiError {
  reached(false)
  return new ApiError(status, TIMEOUT_CODE, t('error.network'))
}

/** Told after each call whether this server answered it (true) or could not be reached (false). */
type ReachabilityListener = (reachable: boolean) => void
const reachabilityListeners = new Set<ReachabilityListener>()

/** Hears whether the server answers: the app's offline state comes and goes with it. */
export function onReachability(listener: ReachabilityListener): () => void {
  reachabilityListeners.add(listener)
  return () => void reachabilityListeners.delete(listener)
}

function reached(reachable: boolean) {
  for (const listener of reachabilityListeners) listener(reachable)
}

/**
 * Whether `e` is a fetch that failed on the way (the browser's "Failed to fetch", Firefox's
 * "NetworkError when attempting to fetch resource.", Safari's "Load failed", a body cut off, or
 * an `AbortSignal.timeout`), as opposed to an answer the server gave.
 */
export function isFetchFailure(e: unknown): boolean {
  if (e instanceof TypeError) return true
  return e instanceof DOMException && e.name === 'TimeoutError'
}

/** A cancelled call (its AbortSignal fired): nothing went wrong, nothing to show. */
export function isAbort(e: unknown): boolean {
  return e instanceof DOMException && e.name === 'AbortError'
}

/** Told of every ApiError a call ends in, before it is thrown (see `onApiError`). */
type ApiErrorListener = (e: ApiError) => void
const listeners = new Set<ApiErrorListener>()

/**
 * Hears every failed call, whoever made it and whether or not they handle it: the session uses it
 * to end on the catalogue's critical error and to notice a refused Exact sign-in at once.
 */
export function onApiError(listener: ApiErrorListener): () => void {
  listeners.add(listener)
  return () => void listeners.delete(listener)
}

function failed(e: ApiError): ApiError {
  for (const listener of listeners) {
    try {
      listener(e)
    } catch (err) {
      console.error('an API error listener failed', err)
    }
  }
  return e
}

/** Gateways answer these for a server behind them that is gone (stopped, restarting). */
const GATEWAY_STATUSES = new Set([502, 503, 504])

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE'
  body?: unknown
  /** Headers beside Accept and Content-Type, e.g. a write's Idempotency-Key. */
  headers?: Record<string, string>
  fetchImpl?: typeof fetch
  /** Gives up after this long without an answer, as a network failure (a Wi-Fi dead spot can hold a call for minutes). */
  timeoutMs?: number
}

/**
 * Set by the server on a live read it answered from its stored copy because Exact Online could not
 * be reached: the copy's time in epoch milliseconds.
 */
export const AS_OF_HEADER = 'X-Data-As-Of'

/** The code of the catalogue's answer when something needs Exact Online and nothing is stored (503). */
export const PROVIDER_UNREACHABLE = 'provider_unreachable'

/** The code of a call refused because Exact Online no longer accepts the user's sign-in (403). */
export const PROVIDER_SIGN_IN = 'provider_sign_in'

/** Exact Online refused the user's sign-in while it answered: the session has ended (401). */
export const SIGN_IN_REFUSED = 'sign_in_refused'

/** An answer's body and, when it came from the server's stored copy, the copy's time. */
export interface Answer<T> {
  body: T
  asOf: number | null
}

export async function api<T>(path: string, options: RequestOptions = {}): Promise<T> {
  return (await request<T>(path, options)).body
}

function asOfOf(res: Response): number | null {
  const raw = res.headers.get(AS_OF_HEADER)
  const ms = raw === null || raw.trim() === '' ? NaN : Number(raw)
  return Number.isFinite(ms) && ms > 0 ? ms : null
}

/** `api` with the answer's as-of time, for live reads a screen dates. */
export async function request<T>(
  path: string,
  { method = 'GET', body, headers: extra, fetchImpl = fetch, timeoutMs }: RequestOptions = {},
): Promise<Answer<T>> {
  // the server says its catalogue's messages in the UI's language
  const headers: Record<string, string> = { Accept: 'application/json', 'Accept-Language': getLanguage(), ...extra }
  if (body !== undefined) headers['Content-Type'] = 'application/json'
  let res: Response
  let text: string
  try {
    res = await fetchImpl('/api/v1' + path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
      ...(timeoutMs !== undefined && typeof AbortSignal.timeout === 'function' ? { signal: AbortSignal.timeout(timeoutMs) } : {}),
    })
    text = res.status === 204 ? '' : await res.text()
  } catch (e) {
    if (isAbort(e)) throw e
    // the browser's own text ("Failed to fetch", "NetworkError when…", "Load failed") tells a
    // user nothing: the catalogue's message for a call that met a network issue does
    if (isFetchFailure(e)) throw failed(networkError())
    throw e
  }
  if (!res.ok) {
    const refused = errorOf(res.status, text)
    // a refusal in the server's own words is an answer: the server is there (a gateway's page
    // for a server that is gone has already told the opposite)
    if (refused.code !== TIMEOUT_CODE) reached(true)
    throw failed(refused)
  }
  let parsed: unknown
  try {
    parsed = text ? JSON.parse(text) : undefined
  } catch {
    // not this server's answer (a captive portal's or a proxy's page): the server was not reached
    throw failed(networkError())
  }
  reached(true)
  return { body: parsed as T, asOf: asOfOf(res) }
}

/** The ApiError of a refused call, from the server's `{"error": {"code", "message"}}`. */
function errorOf(status: number, text: string): ApiError {
  let parsed: { error?: { code?: string; message?: string } | string | null }
  try {
    parsed = JSON.parse(text) as typeof parsed
  } catch {
    // not JSON: a gateway's page for a server that is gone, else only the status says anything
    return GATEWAY_STATUSES.has(status) ? networkError(status) : new ApiError(status, '-', `HTTP ${status}`)
  }
  if (typeof parsed?.error === 'string') {
    // a write refused by Exact Online: `{state: "failed", error: "<Exact's message>", entries}`
    return new ApiError(status, 'refused', parsed.error)
  }
  return new ApiError(status, parsed?.error?.code || '-', parsed?.error?.message || `HTTP ${status}`)
}

export function isApiError(e: unknown, status?: number): e is ApiError {
  return e instanceof ApiError && (status === undefined || e.status === status)
}

/** A call that never reached this server (network down, server gone): the catalogue's network answer. */
export function isNetworkFailure(e: unknown): e is ApiError {
  return isApiError(e) && e.code === TIMEOUT_CODE && (e.status === NETWORK_ERROR_STATUS || GATEWAY_STATUSES.has(e.status))
}

/** Something needed Exact Online right now and it could not be reached (local data keeps working). */
export function isProviderUnreachable(e: unknown): boolean {
  return isApiError(e) && e.code === PROVIDER_UNREACHABLE
}

/** Exact Online ended the user (access withdrawn, left the company): their session is over. */
export function isSignInRefused(e: unknown): boolean {
  return isApiError(e) && e.code === SIGN_IN_REFUSED
}

/** The spec's critical error (§8): the user is logged out and returned to the login screen. */
export function isCriticalError(e: unknown): boolean {
  return isApiError(e) && e.code === 'critical'
}
