import { PUBLIC_SESSION, type Session } from '../api/auth.ts'
import type { OutboxEntry } from '../api/outbox.ts'
import type { Printer } from '../api/org.ts'
import type { PrintJob } from '../components/PrintJobStatus.tsx'

export function session(over: Partial<Session> = {}): Session {
  return {
    ...PUBLIC_SESSION,
    tier: 'full',
    userName: 'demo@example.com',
    fullName: 'Demo User',
    customer_name: 'Van Dijk Machinebouw B.V.',
    division: 3154102,
    divisions: [{ division: 3154102, name: 'Van Dijk Machinebouw B.V.', customer: 'Van Dijk Machinebouw B.V.' }],
    registered: true,
    activated: true,
    providerAccess: 'ok',
    administrator: 'listed',
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

/** A configured, idle printer for any label type, with the fields the server always sends. */
export function printer(over: Partial<Printer> & Pick<Printer, 'name'>): Printer {
  return {
    uri: `ipp://printer.local:631/ipp/print`,
    label_types: [],
    source: 'configured',
    accepted: true,
    state: 'idle',
    accepting_jobs: true,
    message: null,
    capabilities: null,
    ...over,
  }
}

/** An outbox entry (a goods receipt waiting to be sent), with the fields the server always sends. */
export function outboxEntry(over: Partial<OutboxEntry> = {}): OutboxEntry {
  return {
    id: 7,
    uid: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
    action: 'createGoodsReceipt',
    method: 'POST',
    path: 'purchaseorder/GoodsReceipts',
    body: {},
    reconcile: { by: 'unknown' },
    tables: [],
    user: '0badc0de-0000-4000-8000-000000000001',
    user_name: 'Demo User',
    state: 'pending',
    attempts: 0,
    error: null,
    created_ms: 1_780_000_000_000,
    sent_ms: null,
    done_ms: null,
    result_key: null,
    ...over,
  }
}

/** A network print job as the server answers it (queued, 6 labels on Floor), with `over` applied. */
export function printJob(over: Partial<PrintJob> = {}): PrintJob {
  return {
    id: 41,
    printer: 'Floor',
    label_type: 'cnc-new',
    title: 'Shop order 7',
    labels: 6,
    state: 'queued',
    state_text: 'Queued',
    cancelling: false,
    message: null,
    attempts: 0,
    format: null,
    printer_job_id: null,
    created: '2026-11-28T08:00:00Z',
    updated: '2026-11-28T08:00:00Z',
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
