import { lazy, type ComponentType } from 'react'

const RELOAD_KEY = 'esm.reloadedFor'

/**
 * A code-split screen. When its chunk fails to load (typically a new version was deployed
 * and the old hashed file is gone) the target path is reloaded once; a second failure is
 * thrown to the error boundary.
 */
export function lazyScreen(load: () => Promise<{ default: ComponentType }>) {
  return lazy(() =>
    load().then(
      (module) => {
        sessionStorage.removeItem(RELOAD_KEY)
        return module
      },
      (error: unknown) => {
        const target = window.location.pathname + window.location.search
        if (sessionStorage.getItem(RELOAD_KEY) !== target) {
          sessionStorage.setItem(RELOAD_KEY, target)
          window.location.reload()
          return new Promise<never>(() => {})
        }
        throw error
      },
    ),
  )
}
