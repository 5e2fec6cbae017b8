import { Link } from 'react-router'
import type { Session } from '../api/auth.ts'
import { t } from '../i18n/index.ts'
import { landingAfterSignIn } from '../lib/access.ts'

/** A signed-in user whose organization is not activated (or whose licence ran out): the way to the licence page. */
export function ActivationNotice({ session }: { session: Session }) {
  return (
    <p role="status" data-testid="activation-notice" className="rounded bg-amber-50 p-4 text-amber-900">
      {t('dashboard.notActivated')}{' '}
      <Link to={landingAfterSignIn({ activated: false, division: session.division, customer: session.customer_name ?? '' })} className="font-medium underline">
        {t('dashboard.activateLink')}
      </Link>
    </p>
  )
}
