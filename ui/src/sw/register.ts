import { SERVICE_WORKER_FILE } from './precache.ts'

/**
 * Installs the service worker of a built app (the dev server has no sw.js), so the app opens
 * when the server cannot be reached. Needs a secure context: HTTPS, or loopback.
 */
export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator) || !window.isSecureContext) return
  // `none`: the browser asks the server for sw.js on every check, so a release is seen at once
  navigator.serviceWorker.register('/' + SERVICE_WORKER_FILE, { scope: '/', updateViaCache: 'none' }).catch((e: unknown) => {
    // the app works without it, only not offline
    console.warn('the service worker could not be installed', e)
  })
}
