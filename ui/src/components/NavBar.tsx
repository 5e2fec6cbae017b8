import { NavLink } from 'react-router'
import { isRegistered, type Session } from '../api/auth.ts'
import { t } from '../i18n/index.ts'
import { organizationName, withDivision } from '../lib/access.ts'
import { exactHost, exactUrl } from '../lib/exactLinks.ts'
import { navRoutes } from '../routeTable.ts'
import { MenuIcon } from './icons.tsx'
import { useDropdown } from './useDismiss.ts'
import { OrgSwitcher } from './OrgSwitcher.tsx'

/**
 * "for {organization}" to the provider's portal, the screens' links (each with ?division=) once
 * the organization is activated, and the organization switcher.
 */
export function NavBar({ session }: { session: Session }) {
  return (
    <>
      <span className="text-sm text-sky-100">
        {t('nav.for')}{' '}
        <a
          href={exactUrl('portal', session.division, undefined, exactHost(session))}
          target="_blank"
          rel="noopener noreferrer"
          title={t('nav.portalTitle')}
          className="font-medium text-white underline-offset-2 hover:underline"
        >
          {organizationName(session)}
        </a>
      </span>
      {isRegistered(session) && (
        <nav aria-label={t('nav.label')} className="flex flex-wrap gap-1">
          {navRoutes().map((r) => (
            <NavLink
              key={r.path}
              to={withDivision(r.path, session)}
              className={({ isActive }) => `rounded px-3 py-1 text-sm ${isActive ? 'bg-white/20 text-white' : 'text-sky-100 hover:bg-white/10'}`}
            >
              {t(r.nav)}
            </NavLink>
          ))}
        </nav>
      )}
      <OrgSwitcher session={session} />
    </>
  )
}

function PortalLink({ session, className }: { session: Session; className: string }) {
  return (
    <a
      href={exactUrl('portal', session.division, undefined, exactHost(session))}
      target="_blank"
      rel="noopener noreferrer"
      title={t('nav.portalTitle')}
      className={className}
    >
      {organizationName(session)}
    </a>
  )
}

/** The compact header's organization: its switcher, or its name when the user has one. */
export function OrgName({ session }: { session: Session }) {
  if (session.divisions.length >= 2) return <OrgSwitcher session={session} />
  return <PortalLink session={session} className="flex min-h-11 min-w-0 items-center truncate px-1 text-sm text-sky-100 underline-offset-2 hover:underline" />
}

/**
 * The compact header's menu: the screens' links (once the organization is activated) and the
 * link to the provider's portal, opened over the page below the header, so nothing moves.
 */
export function NavMenu({ session }: { session: Session }) {
  const { open, close, toggle, area, trigger } = useDropdown()

  const link = 'flex min-h-12 items-center rounded px-3 text-base'
  return (
    <div ref={area}>
      <button
        ref={trigger}
        type="button"
        aria-expanded={open}
        aria-controls={open ? 'nav-menu' : undefined}
        onClick={toggle}
        className="flex h-11 min-w-11 items-center justify-center rounded px-2 text-sm font-medium hover:bg-white/10"
      >
        <MenuIcon />
        <span className="sr-only">{t('nav.menu')}</span>
      </button>
      {open && (
        <div id="nav-menu" className="absolute inset-x-0 top-full z-40 flex max-h-[80dvh] flex-col gap-1 overflow-y-auto bg-sky-900 p-2 shadow-lg">
          <p className="flex items-center gap-1 px-3 text-sm text-sky-100">
            {t('nav.for')} <PortalLink session={session} className="inline-flex min-h-11 items-center font-medium text-white underline" />
          </p>
          {isRegistered(session) && (
            <nav aria-label={t('nav.label')} className="flex flex-col gap-1">
              {navRoutes().map((r) => (
                <NavLink
                  key={r.path}
                  to={withDivision(r.path, session)}
                  onClick={close}
                  className={({ isActive }) => `${link} ${isActive ? 'bg-white/20 text-white' : 'text-sky-100 hover:bg-white/10'}`}
                >
                  {t(r.nav)}
                </NavLink>
              ))}
            </nav>
          )}
        </div>
      )}
    </div>
  )
}
