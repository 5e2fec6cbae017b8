import type { RefObject } from 'react'
import { t } from '../i18n/index.ts'
import { useEndSession } from '../state/session.tsx'
import { ConfirmDialog } from './ConfirmDialog.tsx'

/** "Are you sure you want to logout?" — Yes ends the session, No closes. */
export function LogoutDialog({ onClose, returnFocusTo }: { onClose: () => void; returnFocusTo?: RefObject<HTMLElement | null> }) {
  const endSession = useEndSession()
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
    />
  )
}
