// Who may enter which route, and where a user goes when a path is unknown or a page breaks
// (spec §2). Pure functions, so the decisions are tested without a browser.
import { instantMs, type Session } from '../api/auth.ts'

/** Access of a route: the spec's three tiers, plus ImportData's recent second sign-in. */
export type Access = 'public' | 'signedIn' | 'full' | 'importData'

/** Screens narrower than this are handhelds (spec §9). */
export const NARROW_WIDTH = 768

export const HOME = '/'
export const DASHBOARD = '/dashboard'
export const SCANNING = '/scanning'
export const LICENSE_CODE = '/license-code'

export function isSignedIn(s: Session | undefined): s is Session {
  return !!s && s.tier !== 'public'
}

export function mayEnter(access: Access, s: Session | undefined, nowMs: number): boolean {
  switch (access) {
    case 'public':
      return true
    case 'signedIn':
      return isSignedIn(s)
    case 'full':
      return s?.tier === 'full'
    case 'importData':
      return s?.tier === 'full' && instantMs(s.importDataUntil) > nowMs
  }
}

/**
 * Whether the route needs full access that this signed-in session lacks only for want of an
 * activated organization (not yet activated, or its licence ran out): every call of its screen
 * would be refused, so the way to activation is shown instead.
 */
export function needsActivation(access: Access, s: Session | undefined): s is Session {
  return (access === 'full' || access === 'importData') && isSignedIn(s) && s.tier !== 'full'
}

/** `path?division=D` for a signed-in user, as every in-app link carries the division. */
export function withDivision(path: string, s: Session | undefined): string {
  return isSignedIn(s) && s.division > 0 ? `${path}?division=${s.division}` : path
}

/**
 * Where an unknown path or an uncaught error sends the user: a signed-in handheld to
 * Scanning (when that screen exists), a signed-in user to the Dashboard, anyone else Home.
 */
export function fallbackPath(s: Session | undefined, narrow: boolean, hasPath: (path: string) => boolean): string {
  if (!isSignedIn(s)) return HOME
  return withDivision(narrow && hasPath(SCANNING) ? SCANNING : DASHBOARD, s)
}

/** Where Home sends someone who is already signed in (null: stay on Home). */
export function signedInLanding(s: Session | undefined): string | null {
  if (!isSignedIn(s)) return null
  return landingAfterSignIn({ activated: s.registered, division: s.division, customer: s.customer_name ?? '' })
}

/** Where a freshly signed-in user goes: the Dashboard, or the licence page when not activated. */
export function landingAfterSignIn(user: { activated: boolean; division: number; customer: string }): string {
  if (user.activated) return `${DASHBOARD}?division=${user.division}`
  const q = new URLSearchParams({ division: String(user.division), customer: user.customer })
  return `${LICENSE_CODE}?${q}`
}
