import { useEffect, useRef, type RefObject } from 'react'

/**
 * Opens a <dialog> as a modal while the component is mounted, and gives the focus back when it
 * goes: to `returnTo` when given (the opener may be gone, e.g. a menu item whose menu closed),
 * otherwise to whatever had the focus when the dialog opened, if it is still on the page.
 */
export function useModalDialog(returnTo?: RefObject<HTMLElement | null>): RefObject<HTMLDialogElement | null> {
  const ref = useRef<HTMLDialogElement>(null)
  // once per mount: the dialog opens with the component and closes with it
  useEffect(() => {
    const opener = document.activeElement instanceof HTMLElement ? document.activeElement : null
    const dialog = ref.current
    if (dialog && !dialog.open) {
      if (typeof dialog.showModal === 'function') dialog.showModal()
      else dialog.setAttribute('open', '')
    }
    return () => {
      dialog?.close?.()
      const target = returnTo?.current ?? opener
      // a deferred focus: the browser moves focus itself while the dialog leaves the page
      if (target) setTimeout(() => target.isConnected && target.focus(), 0)
    }
  }, [])
  return ref
}
