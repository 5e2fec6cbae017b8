import { useCallback, useEffect, useRef, useState, type RefObject } from 'react'

/**
 * Closes an open menu or panel on Escape or on a press outside `area`. Escape gives the focus
 * back to `trigger` (the button that opened it): the focused item leaves with the menu.
 */
export function useDismiss(open: boolean, area: RefObject<HTMLElement | null>, close: () => void, trigger?: RefObject<HTMLElement | null>) {
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

/**
 * The one dropdown of the app: its open state, the area it covers (put `area` on the element
 * holding the trigger and the panel) and its trigger (`trigger` on the button, with
 * `aria-expanded={open}` and `onClick={toggle}`); Escape or a press outside closes it.
 */
export function useDropdown<Area extends HTMLElement = HTMLDivElement>() {
  const [open, setOpen] = useState(false)
  const area = useRef<Area>(null)
  const trigger = useRef<HTMLButtonElement>(null)
  const close = useCallback(() => setOpen(false), [])
  const toggle = useCallback(() => setOpen((o) => !o), [])
  useDismiss(open, area, close, trigger)
  return { open, close, toggle, area, trigger }
}
