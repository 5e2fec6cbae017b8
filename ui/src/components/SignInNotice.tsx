import { useState } from 'react'
import { useLocation } from 'react-router'
import { loginUrl, providerAccess, type Session } from '../api/auth.ts'
import { t } from '../i18n/index.ts'
import { useIsWide } from '../lib/media.ts'

/**
 * Exact Online no longer accepts the user's sign-in: they keep working from the local copy, and
 * signing in again (back to this screen) lets their waiting changes go. Never a logout.
 */
export function SignInNotice({ session }: { session: Session }) {
  const { pathname, search } = useLocation()
  const wide = useIsWide()
  const [leaving, setLeaving] = useState(false)
  if (providerAccess(session) !== 'signInNeeded') return null
  return (
    <div
      role="status"
      aria-label={t('reauth.label')}
      data-testid="sign-in-notice"
      className="flex flex-wrap items-center gap-x-3 gap-y-1 bg-orange-50 px-4 py-2 text-sm text-orange-950"
    >
      <span className="flex-1">{wide ? t('reauth.needed') : t('reauth.neededShort')}</span>
      <a
        href={loginUrl(pathname + search)}
        onClick={() => setLeaving(true)}
        className="min-h-10 rounded-md bg-sky-800 px-3 py-2 font-medium whitespace-nowrap text-white hover:bg-sky-900 focus:ring-2 focus:ring-sky-600 focus:outline-none"
      >
        {leaving ? t('reauth.leaving') : t('reauth.signIn')}
      </a>
    </div>
  )
}
