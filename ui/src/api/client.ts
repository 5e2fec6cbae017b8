// One way to call the server: JSON in and out, the session cookie, and the server's
// `{"error": {"code", "message"}}` turned into an ApiError.
import { t } from '../i18n/index.ts'

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

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE'
  body?: unknown
  fetchImpl?: typeof fetch
}

/**
 * Set by the server on a live read it answered from its stored copy because Exact Online could not
 * be reached: the copy's time in epoch milliseconds.
 */
export const AS_OF_HEADER = 'X-Data-As-Of'

/** The code of the catalogue's answer when something needs Exact Online and nothing is stored (503). */
export const PROVIDER_UNREACHABLE = 'provider_unreachable'

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
export async function request<T>(path: string, { method = 'GET', body, fetchImpl = fetch }: RequestOptions = {}): Promise<Answer<T>> {
  const headers: Record<string, string> = { Accept: 'application/json' }
  if (body !== undefined) headers['Content-Type'] = 'application/json'
  let res: Response
  try {
    res = await fetchImpl('/api/v1' + path, {
      method,
      headers,
      credentials: 'same-origin',
      body: body === undefined ? undefined : JSON.stringify(body),
    })
  } catch {
    // the browser's own text ("Failed to fetch", "NetworkError when…") tells a user nothing
    throw new ApiError(NETWORK_ERROR_STATUS, 'network', t('error.serverUnreachable'))
  }
  if (!res.ok) {
    let code = '-'
    let message = `HTTP ${res.status}`
    try {
      const parsed = (await res.json()) as { error?: { code?: string; message?: string } | string | null }
      if (typeof parsed.error === 'string') {
        // a write refused by Exact Online: `{state: "failed", error: "<Exact's message>", entries}`
        code = 'refused'
        message = parsed.error
      } else {
        if (parsed.error?.code) code = parsed.error.code
        if (parsed.error?.message) message = parsed.error.message
      }
    } catch {
      // not JSON: keep the status
    }
    throw new ApiError(res.status, code, message)
  }
  const asOf = asOfOf(res)
  if (res.status === 204) return { body: undefined as T, asOf }
  const text = await res.text()
  return { body: (text ? JSON.parse(text) : undefined) as T, asOf }
}

export function isApiError(e: unknown, status?: number): e is ApiError {
  return e instanceof ApiError && (status === undefined || e.status === status)
}

/** Something needed Exact Online right now and it could not be reached (local data keeps working). */
export function isProviderUnreachable(e: unknown): boolean {
  return isApiError(e) && e.code === PROVIDER_UNREACHABLE
}

/** The spec's critical error (§8): the user is logged out and returned to the login screen. */
export function isCriticalError(e: unknown): boolean {
  return isApiError(e) && e.code === 'critical'
}
