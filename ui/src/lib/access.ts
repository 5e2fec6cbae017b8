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

/** Whether the session may do everything an activated organization allows (`importData` includes it). */
export function hasFullAccess(s: Session | undefined): s is Session {
  return s?.tier === 'full' || s?.tier === 'importData'
}

export function mayEnter(access: Access, s: Session | undefined, nowMs: number): boolean {
  switch (access) {
    case 'public':
      return true
    case 'signedIn':
      return isSignedIn(s)
    case 'full':
      return hasFullAccess(s)
    case 'importData':
      return hasFullAccess(s) && instantMs(s.importDataUntil) > nowMs
  }
}

/**
 * Whether the route needs full access that this signed-in session lacks only for want of an
 * activated organization (not yet activated, or its licence ran out): every call of its screen
 * would be refused, so the way to activation is shown instead.
 */
export function needsActivation(access: Access, s: Session | undefined): s is Session {
  return (access === 'full' || access === 'importData') && isSignedIn(s) && !hasFullAccess(s)
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

/**
 * Where switching organizations leads: an organization not activated yet to its licence page
 * (its screens would all be refused), away from the licence page once the new one is activated,
 * otherwise the same screen in the new organization.
 */
export function afterSwitch(pathname: string, next: Session): string {
  if (!next.registered) return landingAfterSignIn({ activated: false, division: next.division, customer: next.customer_name ?? '' })
  return withDivision(pathname === LICENSE_CODE ? DASHBOARD : pathname, next)
}

/**
 * The organization a link's `?division=` asks for when it is another of the user's own (a
 * bookmark, the browser's back button, a typed address); null when it asks for none, for the
 * current one, or for one the user cannot choose.
 */
export function askedDivision(search: string, s: Session | undefined): number | null {
  if (!isSignedIn(s)) return null
  const asked = Number(new URLSearchParams(search).get('division'))
  if (!(asked > 0) || asked === s.division) return null
  return s.divisions.some((d) => d.division === asked) ? asked : null
}

/**
 * The chosen organization's own name. The customer name is the licence holder's, the same for
 * every division of one licence, so it named the first company while the second was chosen.
 */
export function organizationName(s: Session): string {
  return s.divisions.find((d) => d.division === s.division)?.name || s.organizationDetails.name || s.customer_name || ''
}
