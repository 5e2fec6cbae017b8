// Whether Exact Online answers, and the organization's write queue (GET /status).
import { call, type Schema } from './contract.ts'

export type ProviderStatus = Schema<'ProviderStatus'>
export type ServerStatus = Schema<'ServerStatus'>

export const getStatus = () => call('get', '/status')
