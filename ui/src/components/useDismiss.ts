import { useEffect, type RefObject } from 'react'

/**
 * Closes an open menu or panel on Escape or on a press outside `area`. Escape gives the focus
 * back to `trigger` (the button that opened it): the focused item leaves with the menu.
 */
export function useDismiss(
  open: boolean,
  area: RefObject<HTMLElement | null>,
  close: () => void,
  trigger?: RefObject<HTMLElement | null>,
) {
  useEffect(() => {
    if (!open) return
    const onEvent = (e: Event) => {
      if (e instanceof KeyboardEvent) {
        if (e.key !== 'Escape') return
        close()
        trigger?.current?.focus()
      } else if (!area.current?.contains(e.target as Node)) close()
    }
    document.addEventListener('mousedown', onEvent)
    document.addEventListener('keydown', onEvent)
    return () => {
      document.removeEventListener('mousedown', onEvent)
      document.removeEventListener('keydown', onEvent)
    }
  }, [open, area, close, trigger])
}
