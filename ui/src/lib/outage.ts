// What the outage banner says, from the server's status: an outage first (the user keeps working
// from the local copy and writes wait), else writes still on their way (or waiting, while Exact
// Online wants the user to sign in again), else refused writes. Only `failed` entries are refusals:
// writes that wait, for whatever reason, are counted as waiting.
import type { ProviderAccess } from '../api/auth.ts'
import type { ServerStatus } from '../api/status.ts'

export type Notice =
  | { kind: 'outage'; since: Date | null; pending: number }
  | { kind: 'sending'; pending: number }
  | { kind: 'waiting'; pending: number }
  | { kind: 'refused'; failed: number }

export function noticeFor(status: ServerStatus | undefined, access: ProviderAccess = 'ok'): Notice | null {
  if (!status) return null
  const { provider, outbox } = status
  if (!provider.reachable) {
    return { kind: 'outage', since: provider.since_ms ? new Date(provider.since_ms) : null, pending: outbox.pending }
  }
  if (outbox.pending > 0) return { kind: access === 'signInNeeded' ? 'waiting' : 'sending', pending: outbox.pending }
  if (outbox.failed > 0) return { kind: 'refused', failed: outbox.failed }
  return null
}
