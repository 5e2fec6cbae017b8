// Ending a session (spec §4: logout, expiry and the critical error all take this path).
import type { QueryClient } from '@tanstack/react-query'
import { PUBLIC_SESSION, type Session } from '../api/auth.ts'
import { isApiError } from '../api/client.ts'
import { queryKeys } from '../api/queries.ts'
import { APP_LOCAL_KEYS } from '../lib/storage.ts'

/**
 * Whether the session check says a session that was signed in has ended: the server now
 * calls it public, or refused the check with 401. A network failure is not an end.
 */
export function sessionEnded(wasSignedIn: boolean, data: Session | undefined, error: unknown): boolean {
  if (!wasSignedIn) return false
  if (isApiError(error, 401)) return true
  return !error && data?.tier === 'public'
}

export interface EndSessionDeps {
  postLogout: () => Promise<unknown>
  queryClient: QueryClient
  local: Storage
  session: Storage
  /** Deletes the scan catalogues kept in the browser's database (`forgetCatalogues`). */
  forgetCatalogues: () => Promise<void>
}

/**
 * Drops the server session (errors ignored: it may be gone already), every cached answer,
 * the kept scan catalogues, sessionStorage and the app's localStorage keys (the session kept for
 * opening offline among them). Bookings waiting on the device stay: each is sent when its maker
 * signs in again. The session then reads public, which stops the 10-second check.
 */
export async function endSession({ postLogout, queryClient, local, session, forgetCatalogues }: EndSessionDeps): Promise<void> {
  try {
    await postLogout()
  } catch {
    // the server session is already gone or unreachable; clear ours anyway
  }
  await queryClient.cancelQueries()
  // The session is set in place, not cleared and made anew: a cleared query leaves the header's
  // observer on the old signed-in answer (nav, organization names, banners) until a reload.
  queryClient.setQueryData(queryKeys.session, PUBLIC_SESSION)
  queryClient.removeQueries({ predicate: (q) => q.queryKey[0] !== queryKeys.session[0] })
  queryClient.getMutationCache().clear()
  try {
    // after the queries are cancelled, so a Scanning screen's read does not keep one again
    await forgetCatalogues()
  } catch {
    // no IndexedDB in this browser: nothing was kept in it
  }
  try {
    session.clear()
    for (const key of APP_LOCAL_KEYS) local.removeItem(key)
  } catch {
    // storage blocked: nothing of ours is in it
  }
}
