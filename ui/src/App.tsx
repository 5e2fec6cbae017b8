import { useEffect, useState } from 'react'
import { fetchHealth, formatUptime, type Health } from './health.ts'

export default function App() {
  const [health, setHealth] = useState<Health | null>(null)
  const [error, setError] = useState<string | null>(null)

  useEffect(() => {
    let cancelled = false
    fetchHealth()
      .then((h) => {
        if (!cancelled) setHealth(h)
      })
      .catch((e: unknown) => {
        if (!cancelled) setError(e instanceof Error ? e.message : String(e))
      })
    return () => {
      cancelled = true
    }
  }, [])

  return (
    <main className="min-h-screen flex flex-col items-center justify-center gap-6 p-6">
      <h1 className="text-3xl font-bold text-sky-900">
        <span className="hidden md:inline">Stock Manager</span>
        <span className="md:hidden">ESM</span>
      </h1>
      <section aria-label="Server status" className="rounded-lg bg-white shadow p-4 min-w-64 text-sm">
        {error && (
          <p role="alert" className="text-red-700">
            Server not reachable: {error}
          </p>
        )}
        {!error && !health && <p>Checking the server…</p>}
        {health && (
          <dl className="grid grid-cols-2 gap-x-4 gap-y-1" data-testid="health">
            <dt className="text-slate-500">Status</dt>
            <dd>{health.status}</dd>
            <dt className="text-slate-500">Version</dt>
            <dd>{health.version}</dd>
            <dt className="text-slate-500">Uptime</dt>
            <dd>{formatUptime(health.uptime_seconds)}</dd>
            <dt className="text-slate-500">Store</dt>
            <dd>{health.store.status}</dd>
          </dl>
        )}
      </section>
    </main>
  )
}
