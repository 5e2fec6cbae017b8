import { api } from './client.ts'

export interface Health {
  status: string
  version: string
  uptime_seconds: number
  store: { status: string }
}

export const getHealth = () => api<Health>('/health')
