// Whether the app can reach its server: the browser says it is offline, or the last call met a
// network failure (Wi-Fi dead spot, server stopped). A call the server answers ends it.
import { useSyncExternalStore } from 'react'
import { onReachability } from '../api/client.ts'

let serverUnreachable = false
const changed = new Set<() => void>()

function notify() {
  for (const listener of changed) listener()
}

onReachability((reachable) => {
  if (serverUnreachable === reachable) {
    serverUnreachable = !reachable
    notify()
  }
})

function subscribe(onChange: () => void) {
  changed.add(onChange)
  window.addEventListener('online', onChange)
  window.addEventListener('offline', onChange)
  return () => {
    changed.delete(onChange)
    window.removeEventListener('online', onChange)
    window.removeEventListener('offline', onChange)
  }
}

/** True while the server cannot be reached. */
export function isOfflineNow(): boolean {
  return !navigator.onLine || serverUnreachable
}

/** `isOfflineNow`, re-rendering when it changes. */
export function useOffline(): boolean {
  return useSyncExternalStore(subscribe, isOfflineNow)
}
