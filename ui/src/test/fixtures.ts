import { PUBLIC_SESSION, type Session } from '../api/auth.ts'

export function session(over: Partial<Session> = {}): Session {
  return {
    ...PUBLIC_SESSION,
    tier: 'full',
    userName: 'demo@example.com',
    fullName: 'Demo User',
    customer_name: 'Van Dijk Machinebouw B.V.',
    division: 3154102,
    divisions: [{ division: 3154102, name: 'Van Dijk Machinebouw B.V.' }],
    registered: true,
    activated: true,
    providerAccess: 'ok',
    organizationDetails: {
      uuid: 'org-1',
      division: 3154102,
      name: 'Van Dijk Machinebouw B.V.',
      sync_timestamps: {},
      preferences: {},
    },
    ...over,
  }
}

/** A Storage backed by a Map (jsdom's is shared between tests). */
export function memoryStorage(initial: Record<string, string> = {}): Storage {
  const m = new Map(Object.entries(initial))
  return {
    get length() {
      return m.size
    },
    clear: () => m.clear(),
    getItem: (k) => m.get(k) ?? null,
    key: (i) => [...m.keys()][i] ?? null,
    removeItem: (k) => void m.delete(k),
    setItem: (k, v) => void m.set(k, String(v)),
  }
}

export function json(body: unknown, status = 200): Response {
  return new Response(status === 204 ? null : JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' },
  })
}
