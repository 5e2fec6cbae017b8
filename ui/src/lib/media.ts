import { useSyncExternalStore } from 'react'
import { NARROW_WIDTH } from './access.ts'

const wideQuery = `(min-width: ${NARROW_WIDTH}px)`

function subscribe(onChange: () => void) {
  const list = window.matchMedia(wideQuery)
  list.addEventListener('change', onChange)
  return () => list.removeEventListener('change', onChange)
}

/** True at 768 px and wider; re-renders when the window crosses the line. */
export function useIsWide(): boolean {
  return useSyncExternalStore(subscribe, () => window.matchMedia(wideQuery).matches)
}

export function isNarrowNow(): boolean {
  return !window.matchMedia(wideQuery).matches
}

/** Phones and handheld scanners, where the settings cog is hidden (spec §2, §6). */
export function isMobileUserAgent(ua: string = navigator.userAgent): boolean {
  return /Android|iPhone|iPad|iPod|Mobile|Windows Phone|Opera Mini/i.test(ua)
}
