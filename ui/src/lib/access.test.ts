import { describe, expect, it } from 'vitest'
import { PUBLIC_SESSION } from '../api/auth.ts'
import { hasRoute, menuRoutes, navRoutes, routes } from '../routeTable.ts'
import { session } from '../test/fixtures.ts'
import {
  afterSwitch,
  askedDivision,
  fallbackPath,
  landingAfterSignIn,
  mayEnter,
  needsActivation,
  organizationName,
  signedInLanding,
  withDivision,
} from './access.ts'

const NOW = Date.parse('2026-11-20T10:00:00Z')
const signedIn = session({ tier: 'signedIn', registered: false })
const full = session()

describe('mayEnter', () => {
  it('lets anyone into public routes', () => {
    expect(mayEnter('public', undefined, NOW)).toBe(true)
    expect(mayEnter('public', PUBLIC_SESSION, NOW)).toBe(true)
  })

  it('needs a session for signed-in routes', () => {
    expect(mayEnter('signedIn', undefined, NOW)).toBe(false)
    expect(mayEnter('signedIn', PUBLIC_SESSION, NOW)).toBe(false)
    expect(mayEnter('signedIn', signedIn, NOW)).toBe(true)
    expect(mayEnter('signedIn', full, NOW)).toBe(true)
  })

  it('needs full access for full routes', () => {
    expect(mayEnter('full', PUBLIC_SESSION, NOW)).toBe(false)
    expect(mayEnter('full', signedIn, NOW)).toBe(false)
    expect(mayEnter('full', full, NOW)).toBe(true)
    // `importData` includes full access
    expect(mayEnter('full', session({ tier: 'importData' }), NOW)).toBe(true)
  })

  it('needs full access and a second sign-in still valid for ImportData', () => {
    expect(mayEnter('importData', full, NOW)).toBe(false)
    expect(mayEnter('importData', session({ importDataUntil: NOW + 5 * 60_000 }), NOW)).toBe(true)
    expect(mayEnter('importData', session({ importDataUntil: NOW - 1_000 }), NOW)).toBe(false)
    expect(mayEnter('importData', session({ importDataUntil: null }), NOW)).toBe(false)
    expect(mayEnter('importData', session({ importDataUntil: NOW + 60_000 }), NOW)).toBe(true)
    expect(mayEnter('importData', session({ importDataUntil: NOW - 1 }), NOW)).toBe(false)
    expect(mayEnter('importData', session({ tier: 'signedIn', importDataUntil: NOW + 5 * 60_000 }), NOW)).toBe(false)
  })
})

describe('needsActivation', () => {
  it('is a signed-in user below full access on a route that needs it', () => {
    expect(needsActivation('full', signedIn)).toBe(true)
    expect(needsActivation('importData', signedIn)).toBe(true)
    expect(needsActivation('full', full)).toBe(false)
    expect(needsActivation('importData', session({ tier: 'importData' }))).toBe(false)
    expect(needsActivation('signedIn', signedIn)).toBe(false)
    expect(needsActivation('public', signedIn)).toBe(false)
    // nobody signed in goes Home instead
    expect(needsActivation('full', PUBLIC_SESSION)).toBe(false)
    expect(needsActivation('full', undefined)).toBe(false)
  })
})

describe('fallbackPath (unknown paths and uncaught errors)', () => {
  const withScanning = (p: string) => p === '/scanning' || hasRoute(p)

  it('sends a signed-out user Home', () => {
    expect(fallbackPath(undefined, false, hasRoute)).toBe('/')
    expect(fallbackPath(PUBLIC_SESSION, true, withScanning)).toBe('/')
  })

  it('sends a signed-in user to the Dashboard with the division', () => {
    expect(fallbackPath(full, false, withScanning)).toBe('/dashboard?division=3154102')
    expect(fallbackPath(signedIn, false, hasRoute)).toBe('/dashboard?division=3154102')
  })

  it('sends a signed-in handheld to Scanning only when that screen exists', () => {
    expect(fallbackPath(full, true, withScanning)).toBe('/scanning?division=3154102')
    expect(fallbackPath(full, true, () => false)).toBe('/dashboard?division=3154102')
    expect(fallbackPath(full, true, hasRoute)).toBe(hasRoute('/scanning') ? '/scanning?division=3154102' : '/dashboard?division=3154102')
  })
})

describe('landings', () => {
  it('Home sends a registered user to the Dashboard, others to the licence page', () => {
    expect(signedInLanding(PUBLIC_SESSION)).toBeNull()
    expect(signedInLanding(full)).toBe('/dashboard?division=3154102')
    expect(signedInLanding(signedIn)).toBe('/license-code?division=3154102&customer=Van+Dijk+Machinebouw+B.V.')
  })

  it('after sign-in an activated organization goes to the Dashboard', () => {
    expect(landingAfterSignIn({ activated: true, division: 7, customer: 'A&B' })).toBe('/dashboard?division=7')
    expect(landingAfterSignIn({ activated: false, division: 7, customer: 'A&B' })).toBe('/license-code?division=7&customer=A%26B')
  })

  it('adds the division only for a signed-in user', () => {
    expect(withDivision('/planning', full)).toBe('/planning?division=3154102')
    expect(withDivision('/planning', PUBLIC_SESSION)).toBe('/planning')
  })
})

describe('route table', () => {
  it('holds the screens that exist, with the spec access but where the server asks for more', () => {
    expect(routes.map((r) => [r.path, r.access])).toEqual([
      ['/', 'public'],
      ['/callback', 'public'],
      ['/dashboard', 'signedIn'],
      ['/license-code', 'signedIn'],
      ['/globalSettings', 'signedIn'],
      // reads and writes items: the server's full tier
      ['/importItems', 'full'],
      ['/accountSettings', 'signedIn'],
      ['/planning', 'full'],
      ['/mng', 'full'],
      ['/purchaseOverview', 'full'],
      ['/materials', 'full'],
      ['/item', 'full'],
      ['/scanning', 'full'],
      // reads stock and transfers, books transfers: the server's full tier
      ['/transfers', 'full'],
      ['/hours', 'full'],
      ['/receipts', 'full'],
      ['/counts', 'full'],
      ['/importData', 'importData'],
    ])
  })

  it('has unique paths, and a screen for each', () => {
    expect(new Set(routes.map((r) => r.path)).size).toBe(routes.length)
    for (const r of routes) expect(r.screen).toBeTruthy()
  })

  it('builds the navigation and the cog menu from the table', () => {
    const table = [
      ...routes.filter((r) => !r.menu && !r.nav),
      { path: '/planning', access: 'full' as const, screen: routes[0].screen, nav: 'nav.label' as const },
      { path: '/globalSettings', access: 'signedIn' as const, screen: routes[0].screen, menu: 'nav.settings' as const },
    ]
    expect(navRoutes(table).map((r) => r.path)).toEqual(['/planning'])
    expect(menuRoutes(table).map((r) => r.path)).toEqual(['/globalSettings'])
    // the navigation bar in the spec's order
    expect(navRoutes().map((r) => [r.path, r.nav])).toEqual([
      ['/planning', 'planning.nav'],
      ['/purchaseOverview', 'purchases.nav'],
      ['/materials', 'materials.nav'],
      ['/scanning', 'scanning.nav'],
      ['/transfers', 'transfers.nav'],
      ['/hours', 'hours.nav'],
      ['/receipts', 'receipts.nav'],
      ['/counts', 'counts.nav'],
    ])
    // the cog menu in the spec's order, then the user's own settings and the database page
    expect(menuRoutes().map((r) => r.path)).toEqual(['/globalSettings', '/importItems', '/accountSettings', '/mng'])
    expect(hasRoute('/scanning')).toBe(true)
  })
})

describe('switching organizations', () => {
  const two = [
    { division: 3154102, name: 'Van Dijk Machinebouw B.V.', customer: 'Van Dijk Machinebouw B.V.' },
    { division: 3154117, name: 'Van Dijk Service B.V.', customer: 'Van Dijk Machinebouw B.V.' },
  ]
  const second = session({ tier: 'signedIn', registered: false, division: 3154117, divisions: two })

  it('leads to the licence page of an organization not activated yet', () => {
    expect(afterSwitch('/planning', second)).toBe('/license-code?division=3154117&customer=Van+Dijk+Machinebouw+B.V.')
  })

  it('keeps the screen in an activated organization, and leaves the licence page for the Dashboard', () => {
    const first = session({ divisions: two })
    expect(afterSwitch('/planning', first)).toBe('/planning?division=3154102')
    expect(afterSwitch('/license-code', first)).toBe('/dashboard?division=3154102')
  })

  it("follows a link's ?division= only to another of the user's organizations", () => {
    expect(askedDivision('?division=3154102', second)).toBe(3154102)
    expect(askedDivision('?division=3154117', second)).toBeNull()
    expect(askedDivision('?division=999', second)).toBeNull()
    expect(askedDivision('', second)).toBeNull()
    expect(askedDivision('?division=abc', second)).toBeNull()
    expect(askedDivision('?division=3154102', PUBLIC_SESSION)).toBeNull()
  })

  it("names the chosen division, not the licence's customer", () => {
    expect(organizationName(second)).toBe('Van Dijk Service B.V.')
    expect(organizationName(session({ divisions: [] }))).toBe('Van Dijk Machinebouw B.V.')
  })
})
