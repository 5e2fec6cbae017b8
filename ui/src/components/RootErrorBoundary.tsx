import { Component, type ErrorInfo, type ReactNode } from 'react'
import { t } from '../i18n/index.ts'

/**
 * The last net: an error thrown outside a screen (the header, the session provider) would leave
 * a blank page. This shows the catalogue's message and a way back that needs nothing of the app
 * (no router, no session), since those may be what failed.
 */
export class RootErrorBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  state = { failed: false }

  static getDerivedStateFromError() {
    return { failed: true }
  }

  componentDidCatch(error: unknown, info: ErrorInfo) {
    console.error('uncaught UI error outside a screen', error, info.componentStack)
  }

  render() {
    if (!this.state.failed) return this.props.children
    return (
      <main role="alert" className="mx-auto flex max-w-xl flex-col gap-4 p-6 text-slate-900">
        <h1 className="text-xl font-bold">{t('error.generic')}</h1>
        <p>{t('error.unknown')}</p>
        <button
          type="button"
          onClick={() => window.location.assign('/')}
          className="min-h-11 w-fit rounded bg-sky-800 px-4 font-medium text-white hover:bg-sky-900"
        >
          {t('error.continue')}
        </button>
      </main>
    )
  }
}
