import type { RefObject } from 'react'
import { t, tCount } from '../i18n/index.ts'
import { useBookings } from '../offline/queue.ts'
import { useEndSession } from '../state/session.tsx'
import { ConfirmDialog } from './ConfirmDialog.tsx'

/**
 * "Are you sure you want to logout?" — Yes ends the session, No closes. Bookings still waiting on
 * this device, anyone's, are counted: logout keeps them, and each goes when its maker signs in
 * again (a shared handheld), so no one logs out believing them sent or lost.
 */
export function LogoutDialog({ onClose, returnFocusTo }: { onClose: () => void; returnFocusTo?: RefObject<HTMLElement | null> }) {
  const endSession = useEndSession()
  const waiting = useBookings().filter((b) => !b.refused).length
  return (
    <ConfirmDialog
      message={t('logout.confirm')}
      noLabel={t('logout.no')}
      yesLabel={t('logout.yes')}
      onNo={onClose}
      returnFocusTo={returnFocusTo}
      onYes={() => {
        onClose()
        void endSession('user')
      }}
    >
      {waiting > 0 && (
        <p data-testid="logout-waiting" className="text-amber-900">
          {tCount('offline.logoutWaiting', waiting)}
        </p>
      )}
    </ConfirmDialog>
  )
}
