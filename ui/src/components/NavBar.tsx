import { NavLink } from 'react-router'
import { isRegistered, type Session } from '../api/auth.ts'
import { t } from '../i18n/index.ts'
import { organizationName, withDivision } from '../lib/access.ts'
import { exactHost, exactUrl } from '../lib/exactLinks.ts'
import { navRoutes } from '../routes/table.ts'
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
              className={({ isActive }) =>
                `rounded px-3 py-1 text-sm ${isActive ? 'bg-white/20 text-white' : 'text-sky-100 hover:bg-white/10'}`
              }
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
