import { SERVICE_WORKER_FILE } from './precache.ts'

/** The first wait before registering again, doubled each time up to `MAX_RETRY_MS`. */
export const FIRST_RETRY_MS = 5_000
export const MAX_RETRY_MS = 5 * 60_000

/**
 * Installs the service worker of a built app (the dev server has no sw.js), so the app opens
 * when the server cannot be reached. Needs a secure context: HTTPS, or loopback.
 */
export function registerServiceWorker(): void {
  if (!import.meta.env.PROD || !('serviceWorker' in navigator) || !window.isSecureContext) return
  void keepRegistered(navigator.serviceWorker, (ms) => new Promise((resolve) => setTimeout(resolve, ms)))
}

type Outcome = 'active' | 'redundant'

/**
 * Registers, and registers again while no worker gets active: a first load in a Wi-Fi dead spot,
 * or a server too busy to hand over one of the shell's files, fails the install, and the browser
 * only tries again when the app is next opened, which on a handheld left open all shift is days.
 * Settles once a worker is active (an update installing beside it changes nothing offline).
 */
export async function keepRegistered(container: ServiceWorkerContainer, sleep: (ms: number) => Promise<void>): Promise<void> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      // `none`: the browser asks the server for sw.js on every check, so a release is seen at once
      const registration = await container.register('/' + SERVICE_WORKER_FILE, { scope: '/', updateViaCache: 'none' })
      if ((await outcome(registration)) === 'active') return
    } catch (e: unknown) {
      // the app works without it, only not offline; told once, not at every try
      if (attempt === 0) console.warn('the service worker could not be installed; trying again', e)
    }
    await sleep(Math.min(FIRST_RETRY_MS * 2 ** attempt, MAX_RETRY_MS))
  }
}

/** Whether the registration's worker got active, or its install failed. */
function outcome(registration: ServiceWorkerRegistration): Promise<Outcome> {
  return new Promise((resolve) => {
    const follow = (worker: ServiceWorker) => {
      const check = () => {
        if (worker.state === 'activated' || registration.active) resolve('active')
        else if (worker.state === 'redundant') resolve('redundant')
      }
      worker.addEventListener('statechange', check)
      check()
    }
    const worker = registration.installing ?? registration.waiting
    if (registration.active) resolve('active')
    else if (worker) follow(worker)
    else {
      registration.addEventListener(
        'updatefound',
        () => {
          if (registration.installing) follow(registration.installing)
        },
        { once: true },
      )
    }
  })
}
