// Sign-in, session, organization and licence calls.
import { isNetworkFailure } from './client.ts'
import { call, type Schema } from './contract.ts'
import { readJson, STORAGE_KEYS, writeJson } from '../lib/storage.ts'
import { DEFAULT_TIME_ZONE, setTimeZone } from '../lib/dateTime.ts'

/** What a session may do; `importData` includes `full` (the server gives sessions the first three). */
export type Tier = Schema<'Tier'>

/** A point in time as the server sends it: epoch milliseconds, or an ISO text. */
export type Instant = number | string

export function instantMs(v: Instant | null | undefined): number {
  if (typeof v === 'number') return v
  return v ? Date.parse(v) : NaN
}

export type OrganizationDetails = Schema<'OrganizationDetails'>

export type Division = Schema<'DivisionChoice'>

/**
 * Whether Exact Online accepts this user's sign-in: 'signInNeeded' when it no longer does (the
 * refresh token was revoked or expired); the session goes on locally, changes under the user's
 * name wait until they sign in with Exact Online again. 'none' without a user.
 */
export type ProviderAccess = Schema<'Access'>

/** The session as the server answers it, and what this browser adds to it. */
export type Session = Schema<'SessionView'> & {
  /**
   * Set on the last session this browser had, shown while the server cannot be reached: screens
   * that work offline (Scanning) open with it; the server decides again once it answers.
   */
  offline?: boolean
}

export function providerAccess(s: Session | undefined): ProviderAccess {
  // a session kept offline by an older version of the app may lack it
  return s?.providerAccess ?? 'ok'
}

export const NOT_INITIALIZED = 'notInitialized'

/** What the server answers without a session; also the state right after logout. */
export const PUBLIC_SESSION: Session = {
  tier: 'public',
  userName: null,
  fullName: null,
  customer_name: null,
  division: -1,
  divisions: [],
  registered: false,
  tokenExpiresAt: null,
  refreshingAuthorization: false,
  importDataUntil: null,
  administrator: 'none',
  adminPasswordSet: false,
  organizationDetails: { uuid: NOT_INITIALIZED, division: -1, name: '', sync_timestamps: {}, preferences: {} },
  userPreferences: {},
  activated: false,
  providerAccess: 'none',
  // the server's configuration, unknown here: the defaults the screens fall back to
  exactHost: '',
  syncIntervalDefault: 15,
  timeZone: DEFAULT_TIME_ZONE,
}

export type CheckUser = Schema<'CheckUser'>

export type Activation = Schema<'Activated'>

/** The session; its time zone becomes the one every date on screen is shown in. */
export async function getSession({ offlineCopy = false }: { offlineCopy?: boolean } = {}): Promise<Session> {
  let session: Session
  try {
    session = await call('get', '/auth/session')
    keepSession(session)
  } catch (e) {
    // `offlineCopy`: the app opens without the server, and may open with the last session it had
    const kept = offlineCopy && isNetworkFailure(e) ? keptSession() : null
    if (!kept) throw e
    session = kept
  }
  setTimeZone(session.timeZone)
  return session
}

/**
 * How long the kept session opens the app offline after the server last confirmed it: a working
 * day on a handheld, not a device left in a drawer that whoever picks up opens as its last user.
 */
export const KEPT_SESSION_MAX_AGE_MS = 12 * 60 * 60 * 1000

/** The kept session with when the server last confirmed it (epoch ms). */
interface KeptSession {
  keptAt: number
  session: Session
}

/** Remembers a signed-in session for opening the app offline (logout removes it, see storage.ts). */
function keepSession(s: Session) {
  try {
    if (s.tier === 'public') localStorage.removeItem(STORAGE_KEYS.keptSession)
    else writeJson(localStorage, STORAGE_KEYS.keptSession, { keptAt: Date.now(), session: s } satisfies KeptSession)
  } catch {
    // storage blocked: the app does not open offline
  }
}

/**
 * The last signed-in session of this browser, marked offline, or null: also when it was kept
 * more than `KEPT_SESSION_MAX_AGE_MS` ago (or without its time, by an older version), and then
 * it is removed.
 */
export function keptSession(now = Date.now()): Session | null {
  let kept: Partial<KeptSession> | null = null
  try {
    kept = readJson(localStorage, STORAGE_KEYS.keptSession) as Partial<KeptSession> | null
  } catch {
    // no storage here (blocked, or not a browser)
  }
  if (!kept || typeof kept !== 'object') return null
  const age = now - (typeof kept.keptAt === 'number' ? kept.keptAt : NaN)
  if (!(age >= 0 && age <= KEPT_SESSION_MAX_AGE_MS)) {
    try {
      localStorage.removeItem(STORAGE_KEYS.keptSession)
    } catch {
      // storage blocked: nothing to remove
    }
    return null
  }
  const s = kept.session
  if (!s || typeof s !== 'object' || s.tier === 'public') return null
  return { ...s, offline: true }
}
export const authorize = (code: string, state: string) => call('post', '/auth/authorize', { body: { code, state } })
export const logout = () => call('post', '/auth/logout')
export const switchDivision = (division: number) => call('post', '/auth/division', { body: { division } })
export const checkUser = () => call('get', '/checkUser')
export const activateLicence = (division: number, customer: string, code: string) => call('post', '/license/activate', { body: { division, customer, code } })

/** The browser navigation that starts the provider's sign-in (a 302 chain, not a fetch). */
export function loginUrl(returnTo?: string): string {
  return '/api/v1/auth/login' + (returnTo ? '?returnTo=' + encodeURIComponent(returnTo) : '')
}

/** Whether the user is an administrator now: confirmed the admin password, or listed by the installation. */
export function isAdministrator(s: Session | undefined): boolean {
  return !!s && s.administrator !== 'none'
}

/** A fresh re-authentication with the password, which ImportData and the printer settings ask for. */
export const reauthWithPassword = (password: string) => call('post', '/auth/reauth', { body: { password } })

/** The provider's sign-in again, which returns to `returnTo` with a fresh re-authentication. */
export function reauthUrl(returnTo: string): string {
  return `/api/v1/auth/login?${new URLSearchParams({ purpose: 'reauth', returnTo })}`
}

/** Whether the organization is set up and activated, which the navigation bar waits for. */
export function isRegistered(s: Session): boolean {
  return s.tier !== 'public' && s.registered && s.organizationDetails.uuid !== NOT_INITIALIZED
}
