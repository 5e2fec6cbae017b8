export interface Health {
  status: string
  version: string
  uptime_seconds: number
  store: { status: string }
}

/** Reads the server's liveness record; throws with the server's own message on failure. */
export async function fetchHealth(fetchImpl: typeof fetch = fetch): Promise<Health> {
  const res = await fetchImpl('/api/v1/health', { headers: { Accept: 'application/json' } })
  if (!res.ok) {
    let message = `HTTP ${res.status}`
    try {
      const body = (await res.json()) as { error?: { message?: string } }
      if (body.error?.message) message = body.error.message
    } catch {
      // not JSON: keep the status text
    }
    throw new Error(message)
  }
  return (await res.json()) as Health
}

export function formatUptime(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds))
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  if (h > 0) return `${h} h ${m} min`
  if (m > 0) return `${m} min ${s % 60} s`
  return `${s} s`
}
