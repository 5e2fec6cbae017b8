import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { json, session } from '../test/fixtures.ts'
import { getSession, KEPT_SESSION_MAX_AGE_MS } from './auth.ts'

const KEPT = 'esm.session.kept'
const SIGNED_IN_AT = Date.parse('2026-03-02T07:00:00Z')
const MINUTE = 60_000

let up = true

beforeEach(() => {
  // only the clock is simulated: the calls' own timers run as usual
  vi.useFakeTimers({ now: SIGNED_IN_AT, toFake: ['Date'] })
  up = true
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => {
      if (!up) throw new TypeError('Failed to fetch')
      return json(session())
    }),
  )
})

afterEach(() => {
  vi.useRealTimers()
  vi.unstubAllGlobals()
  localStorage.clear()
})

describe('the session kept for opening offline', () => {
  it('opens the app offline until 12 hours after the server last confirmed it, then is removed', async () => {
    await getSession()
    up = false
    vi.setSystemTime(SIGNED_IN_AT + KEPT_SESSION_MAX_AGE_MS - MINUTE)
    expect(await getSession({ offlineCopy: true })).toMatchObject({ userName: 'demo@example.com', offline: true })
    vi.setSystemTime(SIGNED_IN_AT + KEPT_SESSION_MAX_AGE_MS + MINUTE)
    await expect(getSession({ offlineCopy: true })).rejects.toMatchObject({ status: 0 })
    expect(localStorage.getItem(KEPT)).toBeNull()
  })

  it('counts the 12 hours from the last answer of the server, not the sign-in', async () => {
    await getSession()
    vi.setSystemTime(SIGNED_IN_AT + 10 * 60 * MINUTE)
    await getSession()
    up = false
    vi.setSystemTime(SIGNED_IN_AT + 22 * 60 * MINUTE - MINUTE)
    expect(await getSession({ offlineCopy: true })).toMatchObject({ offline: true })
    vi.setSystemTime(SIGNED_IN_AT + 22 * 60 * MINUTE + MINUTE)
    await expect(getSession({ offlineCopy: true })).rejects.toMatchObject({ status: 0 })
  })

  it('is refused when kept without its time (by an earlier version)', async () => {
    localStorage.setItem(KEPT, JSON.stringify(session()))
    up = false
    await expect(getSession({ offlineCopy: true })).rejects.toMatchObject({ status: 0 })
    expect(localStorage.getItem(KEPT)).toBeNull()
  })
})
