// Sync state, the Sync Data menu's choices, and starting a sync.
import { api } from './client.ts'

export interface TableState {
  rows: number
  timestamp: number | null
  error: string | null
}

export interface SyncStatus {
  running: boolean
  last_sync: string | null
  tables: Record<string, TableState>
}

export interface SyncEndpoint {
  table: string
  name: string
  sync: boolean
  default_selected: boolean
}

export const getSyncStatus = () => api<SyncStatus>('/sync')
export const getSyncEndpoints = () => api<SyncEndpoint[]>('/sync/endpoints')
/** What `POST /sync` did: the sync started (`started`, of `endpoints`), and the "Fetched live"
 * endpoints of the selection refreshed in their cache (`refreshed`, with why one was not). */
export interface SyncStarted {
  started: boolean
  endpoints: string[]
  refreshed?: Record<string, { ok: boolean; error?: string }>
}

export const startSync = (endpoints: string[]) => api<SyncStarted>('/sync', { method: 'POST', body: { endpoints } })
