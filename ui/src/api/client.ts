// One way to call the server: JSON in and out, the session cookie, and the server's
// `{"error": {"code", "message"}}` turned into an ApiError.

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

export async function api<T>(path: string, { method = 'GET', body, fetchImpl = fetch }: RequestOptions = {}): Promise<T> {
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
  } catch (e) {
    throw new ApiError(NETWORK_ERROR_STATUS, 'network', e instanceof Error ? e.message : String(e))
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
  if (res.status === 204) return undefined as T
  const text = await res.text()
  return (text ? JSON.parse(text) : undefined) as T
}

export function isApiError(e: unknown, status?: number): e is ApiError {
  return e instanceof ApiError && (status === undefined || e.status === status)
}

/** The spec's critical error (§8): the user is logged out and returned to the login screen. */
export function isCriticalError(e: unknown): boolean {
  return isApiError(e) && e.code === 'critical'
}
