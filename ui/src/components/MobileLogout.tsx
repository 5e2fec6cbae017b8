import { useState } from 'react'
import { t } from '../i18n/index.ts'
import { LogoutIcon } from './icons.tsx'
import { LogoutDialog } from './LogoutDialog.tsx'

/** On handhelds the cog is hidden (spec §2, §6); Logout stays reachable here. */
export function MobileLogout() {
  const [confirming, setConfirming] = useState(false)
  return (
    <>
      <button
        type="button"
        aria-label={t('nav.logout')}
        onClick={() => setConfirming(true)}
        className="flex h-11 w-11 items-center justify-center rounded hover:bg-white/10"
      >
        <LogoutIcon />
      </button>
      {confirming && <LogoutDialog onClose={() => setConfirming(false)} />}
    </>
  )
}
