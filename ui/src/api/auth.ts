// Sign-in, session, organization and licence calls.
import { api, isNetworkFailure } from './client.ts'
import { readJson, STORAGE_KEYS, writeJson } from '../lib/storage.ts'
import { setTimeZone } from '../lib/dateTime.ts'

export type Tier = 'public' | 'signedIn' | 'full'

/** A point in time as the server sends it: epoch milliseconds, or an ISO text. */
export type Instant = number | string

export function instantMs(v: Instant | null | undefined): number {
  if (typeof v === 'number') return v
  return v ? Date.parse(v) : NaN
}

export interface OrganizationDetails {
  uuid: string
  division: number
  name: string
  sync_timestamps: Record<string, unknown>
  preferences: Record<string, unknown>
}

export interface Division {
  division: number
  name: string
}

/**
 * Whether Exact Online accepts this user's sign-in: 'signInNeeded' when it no longer does (the
 * refresh token was revoked or expired); the session goes on locally, changes under the user's
 * name wait until they sign in with Exact Online again. 'none' without a user.
 */
export type ProviderAccess = 'ok' | 'signInNeeded' | 'none'

export interface Session {
  tier: Tier
  userName: string | null
  fullName: string | null
  customer_name: string | null
  division: number
  divisions: Division[]
  registered: boolean
  /** Epoch milliseconds (an ISO text is accepted too). */
  tokenExpiresAt: Instant | null
  refreshingAuthorization: boolean
  /** Until when ImportData's second sign-in is valid. */
  importDataUntil: Instant | null
  organizationDetails: OrganizationDetails
  /** The user's own preferences in this organization (language, sync selection, …). */
  userPreferences?: Record<string, unknown>
  /** After a re-authentication: the local path that asked for it. */
  returnTo?: string
  /** Absent from older servers: read it through `providerAccess()`. */
  providerAccess?: ProviderAccess
  /** The configured Exact Online host of the company's country (links to Exact's pages). */
  exactHost?: string
  /** The server's sync interval (minutes) for organizations that set none of their own. */
  syncIntervalDefault?: number
  /** The organization's time zone (IANA name) for the server's times and "today"; absent from older servers. */
  timeZone?: string
  /**
   * Set on the last session this browser had, shown while the server cannot be reached: screens
   * that work offline (Scanning) open with it; the server decides again once it answers.
   */
  offline?: boolean
}

export function providerAccess(s: Session | undefined): ProviderAccess {
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
  organizationDetails: { uuid: NOT_INITIALIZED, division: -1, name: '', sync_timestamps: {}, preferences: {} },
  userPreferences: {},
}

export interface CheckUser {
  activated: boolean
  division: number
  customer: string
  licence: { expires: string | null } | null
  token: { expires_at: string }
}

export interface Activation {
  activated: boolean
  organizationDetails: OrganizationDetails
}

/** The session; its time zone becomes the one every date on screen is shown in. */
export async function getSession({ offlineCopy = false }: { offlineCopy?: boolean } = {}): Promise<Session> {
  let session: Session
  try {
    session = await api<Session>('/auth/session')
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

/** Remembers a signed-in session for opening the app offline (logout removes it, see storage.ts). */
function keepSession(s: Session) {
  try {
    if (s.tier === 'public') localStorage.removeItem(STORAGE_KEYS.keptSession)
    else writeJson(localStorage, STORAGE_KEYS.keptSession, s)
  } catch {
    // storage blocked: the app does not open offline
  }
}

/** The last signed-in session of this browser, marked offline, or null. */
export function keptSession(): Session | null {
  let s: unknown = null
  try {
    s = readJson(localStorage, STORAGE_KEYS.keptSession)
  } catch {
    // no storage here (blocked, or not a browser)
  }
  if (!s || typeof s !== 'object' || !('tier' in s) || (s as Session).tier === 'public') return null
  return { ...(s as Session), offline: true }
}
export const authorize = (code: string, state: string) =>
  api<Session>('/auth/authorize', { method: 'POST', body: { code, state } })
export const logout = () => api<void>('/auth/logout', { method: 'POST' })
export const switchDivision = (division: number) =>
  api<Session>('/auth/division', { method: 'POST', body: { division } })
export const checkUser = () => api<CheckUser>('/checkUser')
export const activateLicence = (division: number, customer: string, code: string) =>
  api<Activation>('/license/activate', { method: 'POST', body: { division, customer, code } })

/** The browser navigation that starts the provider's sign-in (a 302 chain, not a fetch). */
export function loginUrl(returnTo?: string): string {
  return '/api/v1/auth/login' + (returnTo ? '?returnTo=' + encodeURIComponent(returnTo) : '')
}

/** A fresh re-authentication with the password, which ImportData and the printer settings ask for. */
export const reauthWithPassword = (password: string) => api<Session>('/auth/reauth', { method: 'POST', body: { password } })

/** The provider's sign-in again, which returns to `returnTo` with a fresh re-authentication. */
export function reauthUrl(returnTo: string): string {
  return `/api/v1/auth/login?${new URLSearchParams({ purpose: 'reauth', returnTo })}`
}

/** Whether the organization is set up and activated, which the navigation bar waits for. */
export function isRegistered(s: Session): boolean {
  return s.tier !== 'public' && s.registered && s.organizationDetails.uuid !== NOT_INITIALIZED
}
