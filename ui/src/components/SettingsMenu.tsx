import { useState } from 'react'
import { Link } from 'react-router'
import type { Session } from '../api/auth.ts'
import { t } from '../i18n/index.ts'
import { mayEnter, withDivision } from '../lib/access.ts'
import { menuRoutes } from '../routeTable.ts'
import { CogIcon } from './icons.tsx'
import { LogoutDialog } from './LogoutDialog.tsx'
import { useDropdown } from './useDismiss.ts'

/** The settings cog: Preferences heading, the settings screens that exist, and Logout. */
export function SettingsMenu({ session }: { session: Session }) {
  const { open, close, toggle, area, trigger: button } = useDropdown()
  const [confirming, setConfirming] = useState(false)

  const item = 'block w-full px-4 py-2 text-left hover:bg-slate-100 focus:bg-slate-100 focus:outline-none'
  return (
    <div ref={area} className="relative">
      <button
        ref={button}
        type="button"
        aria-label={t('nav.settings')}
        aria-haspopup="menu"
        aria-expanded={open}
        onClick={toggle}
        className="rounded p-2 hover:bg-white/10"
      >
        <CogIcon />
      </button>
      {open && (
        <div role="menu" className="absolute right-0 z-40 mt-2 w-56 rounded-md bg-white py-1 text-slate-900 shadow-lg">
          <p role="presentation" className="px-4 py-2 text-xs font-semibold uppercase tracking-wide text-slate-500">
            {t('nav.preferences')}
          </p>
          {menuRoutes()
            .filter((r) => mayEnter(r.access, session, Date.now()))
            .map((r) => (
              <Link key={r.path} role="menuitem" to={withDivision(r.path, session)} className={item} onClick={close}>
                {t(r.menu)}
              </Link>
            ))}
          <hr className="my-1 border-slate-200" />
          <button
            type="button"
            role="menuitem"
            className={item}
            onClick={() => {
              close()
              setConfirming(true)
            }}
          >
            {t('nav.logout')}
          </button>
        </div>
      )}
      {confirming && <LogoutDialog onClose={() => setConfirming(false)} returnFocusTo={button} />}
    </div>
  )
}
