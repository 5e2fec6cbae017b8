// Whether Exact Online answers, and the organization's write queue (GET /status).
import { api } from './client.ts'

export interface ProviderStatus {
  reachable: boolean
  since_ms: number | null
  last_error: string | null
}

export interface ServerStatus {
  provider: ProviderStatus
  outbox: { pending: number; failed: number }
}

export const getStatus = () => api<ServerStatus>('/status')
