import { useQueryClient } from '@tanstack/react-query'
import { createContext, useCallback, useContext, useState, type ReactNode } from 'react'
import { createPortal } from 'react-dom'
import { Link } from 'react-router'
import { isRegistered, type Session } from '../api/auth.ts'
import { purchaseKeys, materialKeys, queryKeys, stockTableKeys, useSession } from '../api/queries.ts'
import { DASHBOARD, hasFullAccess, isSignedIn, withDivision } from '../lib/access.ts'
import { isMobileUserAgent, useIsWide } from '../lib/media.ts'
import { afterSyncTable } from '../offline/catalogue.ts'
import { t } from '../i18n/index.ts'
import { useSyncToasts } from '../state/toasts.ts'
import { BrandName } from './BrandName.tsx'
import { MobileLogout } from './MobileLogout.tsx'
import { NavBar, NavMenu, OrgName } from './NavBar.tsx'
import { DivisionFromUrl } from './OrgSwitcher.tsx'
import { OfflineBanner } from './OfflineBanner.tsx'
import { OutageBanner } from './OutageBanner.tsx'
import { SettingsMenu } from './SettingsMenu.tsx'
import { ToastList } from './ToastList.tsx'
import { WaitingBookings } from './WaitingBookings.tsx'
import { SentBookings } from './SentBookings.tsx'

const BannerPlace = createContext<(place: HTMLElement | null) => void>(() => {})

/**
 * For a screen that shows the banners in a place of its own (a ref callback) instead of above
 * it: Planning's is beside its title, so a banner coming or going never moves the chart.
 */
export const useBannerPlace = () => useContext(BannerPlace)

/** The header of a signed-in user, the page, and the sync toasts (spec §2). */
export function AppShell({ children }: { children: ReactNode }) {
  const { data: session } = useSession()
  const full = hasFullAccess(session)
  // handhelds get the sync progress in the header, where it covers no form (SyncToasts)
  const wide = useIsWide()
  const [place, setPlace] = useState<HTMLElement | null>(null)
  const banners = (
    <>
      <OfflineBanner />
      {isSignedIn(session) && <WaitingBookings session={session} />}
      {isSignedIn(session) && <SentBookings division={session.division} />}
      {isSignedIn(session) && <OutageBanner session={session} />}
    </>
  )
  return (
    <div className="flex min-h-screen flex-col">
      {/* the keyboard's first stop: past the header to the screen (WCAG 2.4.1) */}
      <a
        href="#main"
        className="sr-only focus:not-sr-only focus:absolute focus:top-2 focus:left-2 focus:z-50 focus:rounded focus:bg-white focus:px-4 focus:py-2 focus:text-sky-900 focus:shadow-lg focus:ring-2 focus:ring-sky-600"
        onClick={(e) => {
          // the address keeps its ?division=: move the focus without a hash in the URL
          e.preventDefault()
          document.getElementById('main')?.focus()
        }}
      >
        {t('nav.skipToContent')}
      </a>
      {isSignedIn(session) && (wide ? <Header session={session} /> : <CompactHeader session={session} toasts={full} />)}
      {place ? createPortal(banners, place) : banners}
      <main id="main" tabIndex={-1} className="flex flex-1 flex-col focus:outline-none">
        <BannerPlace.Provider value={setPlace}>{children}</BannerPlace.Provider>
      </main>
      {full && wide && <SyncToasts />}
    </div>
  )
}

function Header({ session }: { session: Session }) {
  const wide = useIsWide()
  const registered = isRegistered(session)
  const brand = 'text-lg font-bold tracking-tight text-white'
  return (
    <header className="flex flex-wrap items-center gap-x-4 gap-y-2 bg-sky-900 px-4 py-2 text-white shadow">
      {wide && registered ? (
        <Link to={withDivision(DASHBOARD, session)} className={brand}>
          <BrandName />
        </Link>
      ) : (
        <span className={brand}>
          <BrandName />
        </span>
      )}
      {/* also before activation: its organization switcher is the way back to an activated one */}
      <NavBar session={session} />
      <DivisionFromUrl session={session} />
      <div className="ml-auto">{isMobileUserAgent() ? <MobileLogout /> : <SettingsMenu session={session} />}</div>
    </header>
  )
}

/**
 * Under 768 px one row of at most 56 px: "ESM", the organization, the sync progress, a menu with
 * the screens' links, and Logout (or the cog), each at least 44 px to tap. The wrapping bar took
 * 155 px of a handheld's screen.
 */
function CompactHeader({ session, toasts }: { session: Session; toasts: boolean }) {
  return (
    <header className="relative flex h-14 items-center gap-1 bg-sky-900 px-2 text-white shadow">
      <span className="shrink-0 px-1 text-lg font-bold tracking-tight text-white">
        <BrandName />
      </span>
      <OrgName session={session} />
      <DivisionFromUrl session={session} />
      <div className="ml-auto flex shrink-0 items-center gap-1">
        {toasts && <SyncToasts />}
        <NavMenu session={session} />
        {isMobileUserAgent() ? <MobileLogout /> : <SettingsMenu session={session} />}
      </div>
    </header>
  )
}

function SyncToasts() {
  const queryClient = useQueryClient()
  const division = useSession().data?.division
  const refresh = useCallback(() => {
    void queryClient.invalidateQueries({ queryKey: queryKeys.syncStatus })
    void queryClient.invalidateQueries({ queryKey: stockTableKeys.all })
    void queryClient.invalidateQueries({ queryKey: purchaseKeys.all })
    void queryClient.invalidateQueries({ queryKey: materialKeys.shortagesAll })
    // the handheld's scan catalogue follows the copy once the whole sync is over
    if (division !== undefined) void afterSyncTable(queryClient, division)
  }, [queryClient, division])
  const { toasts, toggle } = useSyncToasts(true, refresh)
  return <ToastList toasts={toasts} onToggle={toggle} />
}
