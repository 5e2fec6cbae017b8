import type { ReactNode, RefObject } from 'react'
import { useModalDialog } from '../useModalDialog.ts'

interface Props {
  /** The id of the dialog's title: a dialog is named by it. */
  labelledBy: string
  /** Escape and the close buttons call this; the caller unmounts the dialog to close it. */
  onClose: () => void
  className: string
  children: ReactNode
  /** Where the focus goes when it closes, when its opener leaves the page with it. */
  returnFocusTo?: RefObject<HTMLElement | null>
}

/**
 * A modal <dialog> open while mounted (useModalDialog). Escape does not close it by itself: it asks
 * `onClose`, so the screen's state, not the browser, decides whether it is open.
 */
export function Dialog({ labelledBy, onClose, className, children, returnFocusTo }: Props) {
  const ref = useModalDialog(returnFocusTo)
  return (
    <dialog
      ref={ref}
      aria-labelledby={labelledBy}
      onCancel={(e) => {
        e.preventDefault()
        onClose()
      }}
      className={className}
    >
      {children}
    </dialog>
  )
}
