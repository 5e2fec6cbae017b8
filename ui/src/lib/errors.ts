// The product's own errors (spec §2, §8): a message and a code, a handler of their own and a
// default redirect. The error boundary runs the handler, shows message and code, then goes to
// the redirect (or where any uncaught error goes).

/** The catalogue's generic code. */
export const GENERIC_CODE = '-'

export class CustomError extends Error {
  readonly code: string
  /** Where to go afterwards; the uncaught-error fallback when absent. */
  readonly redirectTo?: string
  /** Runs once when the error reaches the boundary (e.g. drop a cache). */
  readonly handle?: () => void

  constructor(message: string, options: { code?: string; redirectTo?: string; handle?: () => void } = {}) {
    super(message)
    this.name = 'CustomError'
    this.code = options.code ?? GENERIC_CODE
    this.redirectTo = options.redirectTo
    this.handle = options.handle
  }
}

export function isCustomError(e: unknown): e is CustomError {
  return e instanceof CustomError
}

/** What the boundary shows and where it goes. */
export function errorOutcome(e: unknown, fallback: string): { title: 'custom' | 'generic'; detail: string | null; redirect: string } {
  if (isCustomError(e)) return { title: 'custom', detail: `${e.message} (${e.code})`, redirect: e.redirectTo ?? fallback }
  return { title: 'generic', detail: e instanceof Error ? e.message : null, redirect: fallback }
}
