// Sync state, the Sync Data menu's choices, and starting a sync.
import { call, type Schema } from './contract.ts'

export type TableState = Schema<'TableState'>
export type SyncStatus = Schema<'SyncStatus'>
export type SyncEndpoint = Schema<'EndpointInfo'>
/** What `POST /sync` did: the sync started (`started`, of `endpoints`), and the "Fetched live"
 * endpoints of the selection refreshed in their cache (`refreshed`, with why one was not). */
export type SyncStarted = Schema<'SyncStarted'>

export const getSyncStatus = () => call('get', '/sync')
export const getSyncEndpoints = () => call('get', '/sync/endpoints')
export const startSync = (endpoints: string[]) => call('post', '/sync', { body: { endpoints } })
