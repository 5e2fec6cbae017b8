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
export const startSync = (endpoints: string[]) =>
  api<{ started: boolean; endpoints: string[] }>('/sync', { method: 'POST', body: { endpoints } })
