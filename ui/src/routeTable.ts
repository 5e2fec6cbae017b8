// The one route table (spec §2): each route's path, screen and access; `nav` puts it in the
// navigation bar, `menu` under the settings cog. The bar and the menu are built from here, so
// a screen appears in them the day it is added. The bar follows the spec's order. It sits at the
// root beside App.tsx, not in routes/: the navigation in components/ reads it, and every screen
// in it is loaded lazily, so reading it imports no screen.
import type { ComponentType, LazyExoticComponent } from 'react'
import type { MessageKey } from './i18n/index.ts'
import type { Access } from './lib/access.ts'
import { lazyScreen } from './lib/lazyScreen.ts'

export interface RouteDef {
  path: string
  access: Access
  screen: LazyExoticComponent<ComponentType>
  /** Label of its link in the navigation bar. */
  nav?: MessageKey
  /** Label of its entry under the settings cog. */
  menu?: MessageKey
  /** Opens without the server with the last session (its scans and bookings work offline). */
  offline?: boolean
}

export const routes: readonly RouteDef[] = [
  { path: '/', access: 'public', screen: lazyScreen(() => import('./routes/Home.tsx')) },
  { path: '/callback', access: 'public', screen: lazyScreen(() => import('./routes/Callback.tsx')) },
  { path: '/dashboard', access: 'signedIn', screen: lazyScreen(() => import('./routes/Dashboard.tsx')) },
  { path: '/license-code', access: 'signedIn', screen: lazyScreen(() => import('./routes/LicenseCode.tsx')) },
  {
    path: '/globalSettings',
    access: 'signedIn',
    screen: lazyScreen(() => import('./routes/GlobalSettings.tsx')),
    menu: 'menu.globalSettings',
  },
  {
    // the spec says signed in, but reading and writing items needs an activated organization
    path: '/importItems',
    access: 'full',
    screen: lazyScreen(() => import('./features/importItems/ImportItems.tsx')),
    menu: 'menu.importItems',
  },
  {
    path: '/accountSettings',
    access: 'signedIn',
    screen: lazyScreen(() => import('./routes/AccountSettings.tsx')),
    menu: 'menu.accountSettings',
  },
  {
    path: '/planning',
    access: 'full',
    screen: lazyScreen(() => import('./features/planning/Planning.tsx')),
    nav: 'planning.nav',
  },
  { path: '/mng', access: 'full', screen: lazyScreen(() => import('./routes/Management.tsx')), menu: 'menu.management' },
  {
    path: '/purchaseOverview',
    access: 'full',
    screen: lazyScreen(() => import('./features/purchases/PurchaseOverview.tsx')),
    nav: 'purchases.nav',
  },
  { path: '/materials', access: 'full', screen: lazyScreen(() => import('./features/materials/Materials.tsx')), nav: 'materials.nav' },
  // one item, opened from a Dashboard row: no entry of its own in the navigation
  { path: '/item', access: 'full', screen: lazyScreen(() => import('./features/item/ItemPage.tsx')) },
  {
    path: '/scanning',
    access: 'full',
    screen: lazyScreen(() => import('./features/scanning/Scanning.tsx')),
    nav: 'scanning.nav',
    offline: true,
  },
  {
    // the spec says signed in, but its stock, transfers and bookings need an activated organization
    path: '/transfers',
    access: 'full',
    screen: lazyScreen(() => import('./features/transfers/Transfers.tsx')),
    nav: 'transfers.nav',
  },
  { path: '/hours', access: 'full', screen: lazyScreen(() => import('./features/hours/Hours.tsx')), nav: 'hours.nav' },
  { path: '/receipts', access: 'full', screen: lazyScreen(() => import('./features/receipts/Receipts.tsx')), nav: 'receipts.nav' },
  // count sessions live on this server: counting goes on while Exact Online is out of reach
  { path: '/counts', access: 'full', screen: lazyScreen(() => import('./features/counts/Counts.tsx')), nav: 'counts.nav' },
  { path: '/importData', access: 'importData', screen: lazyScreen(() => import('./features/importData/ImportData.tsx')) },
]

export function hasRoute(path: string, table: readonly RouteDef[] = routes): boolean {
  return table.some((r) => r.path === path)
}

export function navRoutes(table: readonly RouteDef[] = routes): (RouteDef & { nav: MessageKey })[] {
  return table.filter((r): r is RouteDef & { nav: MessageKey } => r.nav !== undefined)
}

export function menuRoutes(table: readonly RouteDef[] = routes): (RouteDef & { menu: MessageKey })[] {
  return table.filter((r): r is RouteDef & { menu: MessageKey } => r.menu !== undefined)
}
