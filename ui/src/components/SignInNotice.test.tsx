import { cleanup, render, screen } from '@testing-library/react'
import { MemoryRouter } from 'react-router'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Session } from '../api/auth.ts'
import { setLanguage } from '../i18n/index.ts'
import { sessionEnded } from '../state/sessionEnd.ts'
import { session } from '../test/fixtures.ts'
import { SignInNotice } from './SignInNotice.tsx'

function screenWidth(wide: boolean) {
  vi.stubGlobal('matchMedia', (query: string) => ({
    matches: wide,
    media: query,
    addEventListener: () => {},
    removeEventListener: () => {},
  }))
}

function show(s: Session, at = '/hours?division=3154102') {
  return render(
    <MemoryRouter initialEntries={[at]}>
      <SignInNotice session={s} />
    </MemoryRouter>,
  )
}

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
  setLanguage('en', false)
})

describe('SignInNotice', () => {
  it('asks to sign in with Exact Online again and comes back to this screen', () => {
    screenWidth(true)
    show(session({ providerAccess: 'signInNeeded' }))
    const notice = screen.getByTestId('sign-in-notice')
    expect(notice.textContent).toContain('Exact Online needs you to sign in again. Your local work goes on; your changes wait until you do.')
    const link = screen.getByRole('link', { name: 'Sign in with Exact Online' })
    expect(link.getAttribute('href')).toBe('/api/v1/auth/login?returnTo=%2Fhours%3Fdivision%3D3154102')
  })

  it('does not end the session', () => {
    expect(sessionEnded(true, session({ providerAccess: 'signInNeeded' }), null)).toBe(false)
  })

  it('is short on a handheld and speaks Dutch', () => {
    screenWidth(false)
    setLanguage('nl', false)
    show(session({ providerAccess: 'signInNeeded' }), '/scanning')
    expect(screen.getByTestId('sign-in-notice').textContent).toContain('Log opnieuw in bij Exact Online: uw wijzigingen wachten.')
    expect(screen.getByRole('link').getAttribute('href')).toBe('/api/v1/auth/login?returnTo=%2Fscanning')
  })

  it('says nothing while Exact Online accepts the sign-in, or when an older server does not tell', () => {
    screenWidth(true)
    show(session({ providerAccess: 'ok' }))
    show(session())
    show(session({ providerAccess: 'none' }))
    expect(screen.queryByTestId('sign-in-notice')).toBeNull()
  })
})
