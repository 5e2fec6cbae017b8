import { Component, useEffect, type ErrorInfo, type ReactNode } from 'react'
import { useNavigate } from 'react-router'
import { isApiError, isCriticalError } from '../api/client.ts'
import { useSession } from '../api/queries.ts'
import { t } from '../i18n/index.ts'
import { fallbackPath } from '../lib/access.ts'
import { errorOutcome, isCustomError } from '../lib/errors.ts'
import { isNarrowNow } from '../lib/media.ts'
import { hasRoute } from '../routeTable.ts'
import { useEndSession } from '../state/session.tsx'

/** How long "An error has occurred" shows before the redirect. */
const REDIRECT_AFTER_MS = 3_000

interface State {
  error: unknown
}

/** Catches what a screen throws and hands it to ErrorScreen. */
export class ErrorBoundary extends Component<{ children: ReactNode }, State> {
  state: State = { error: null }

  static getDerivedStateFromError(error: unknown): State {
    return { error: error ?? new Error('unknown') }
  }

  componentDidCatch(error: unknown, info: ErrorInfo) {
    console.warn('uncaught UI error', error, info.componentStack)
  }

  reset = () => this.setState({ error: null })

  render() {
    if (this.state.error) return <ErrorScreen error={this.state.error} onDone={this.reset} />
    return this.props.children
  }
}

function ErrorScreen({ error, onDone }: { error: unknown; onDone: () => void }) {
  const navigate = useNavigate()
  const endSession = useEndSession()
  const { data: session } = useSession()
  // a critical error, or a lost session, ends the session; a custom error runs its own
  // handler and goes to its redirect; others say "An error has occurred" and redirect (spec §2)
  const critical = isCriticalError(error) || isApiError(error, 401)
  const outcome = errorOutcome(error, fallbackPath(session, isNarrowNow(), hasRoute))

  useEffect(() => {
    if (isCustomError(error)) error.handle?.()
  }, [error])

  useEffect(() => {
    const go = () => {
      if (critical) void endSession('critical').then(onDone)
      else {
        navigate(outcome.redirect, { replace: true })
        onDone()
      }
    }
    const timer = setTimeout(go, critical ? 0 : REDIRECT_AFTER_MS)
    return () => clearTimeout(timer)
  }, [critical, endSession, navigate, onDone, outcome.redirect])

  return (
    <div role="alert" className="m-auto max-w-md rounded-lg bg-white p-6 text-center shadow">
      <p className="mb-2 text-lg font-semibold text-red-800">{t(critical ? 'error.critical' : 'error.generic')}</p>
      {outcome.detail && <p className="text-sm text-slate-600">{outcome.detail}</p>}
    </div>
  )
}
