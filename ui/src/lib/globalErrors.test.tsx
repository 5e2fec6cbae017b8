import { act, cleanup, render, screen } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ApiError } from '../api/client.ts'
import { ErrorToasts } from '../components/ErrorToasts.tsx'
import { ErrorNotices, installGlobalErrorHandler, MAX_NOTICES, NOTICE_MS, reportError } from './globalErrors.ts'

const NETWORK = 'Function code timed out or there was a network issue / try executing the call again'

/** A failed promise nobody caught, as the browser announces it. */
function rejection(reason: unknown): Event {
  const event = new Event('unhandledrejection', { cancelable: true })
  Object.defineProperty(event, 'reason', { value: reason })
  return event
}

const quiet = { warn: vi.fn(), error: vi.fn() }

afterEach(() => {
  cleanup()
  vi.useRealTimers()
  vi.restoreAllMocks()
})

describe('installGlobalErrorHandler', () => {
  let reported: unknown[]
  let stop: () => void
  beforeEach(() => {
    reported = []
    stop = installGlobalErrorHandler(window, (e) => reported.push(e))
  })
  afterEach(() => stop())

  it('hears failed promises nobody caught and takes over their logging', () => {
    const reason = new TypeError('Failed to fetch')
    const event = rejection(reason)
    window.dispatchEvent(event)
    expect(reported).toEqual([reason])
    expect(event.defaultPrevented).toBe(true)
  })

  it('hears uncaught exceptions, not the browser’s own notes', () => {
    const boom = new Error('boom')
    window.dispatchEvent(new ErrorEvent('error', { error: boom, message: 'boom', cancelable: true }))
    vi.spyOn(console, 'warn').mockImplementation(() => {})
    window.dispatchEvent(new ErrorEvent('error', { error: null, message: 'ResizeObserver loop completed with undelivered notifications.' }))
    window.dispatchEvent(new ErrorEvent('error', { error: null, message: 'Script error.' }))
    expect(reported).toEqual([boom])
  })

  it('stops listening when told', () => {
    stop()
    window.dispatchEvent(rejection(new Error('late')))
    expect(reported).toEqual([])
  })
})

describe('reportError', () => {
  it('logs the error and shows the catalogue’s message with its code', () => {
    const notices = new ErrorNotices()
    const log = { warn: vi.fn(), error: vi.fn() }
    const raw = new TypeError('Failed to fetch')
    reportError(raw, notices, log)
    expect(notices.list()).toMatchObject([{ message: NETWORK, code: 'timeout', count: 1 }])
    expect(log.warn).toHaveBeenCalledWith('unhandled error', 'timeout', raw)
    const bug = new TypeError("Cannot read properties of undefined (reading 'x')")
    reportError(bug, notices, log)
    expect(log.error).toHaveBeenCalledWith('unhandled error', bug)
    expect(notices.list()[1]).toMatchObject({ code: '-', message: expect.stringMatching(/^UNKNOWN ERROR OCCURRED/) })
  })

  it('counts the same error while it shows instead of stacking it', () => {
    vi.useFakeTimers()
    const notices = new ErrorNotices()
    for (let i = 0; i < 5; i++) reportError(new TypeError('Failed to fetch'), notices, quiet)
    expect(notices.list()).toMatchObject([{ message: NETWORK, count: 5 }])
    // each repeat keeps it up for the whole countdown again
    vi.advanceTimersByTime(NOTICE_MS - 1)
    reportError(new TypeError('Load failed'), notices, quiet)
    vi.advanceTimersByTime(NOTICE_MS - 1)
    expect(notices.list()).toMatchObject([{ count: 6 }])
    vi.advanceTimersByTime(1)
    expect(notices.list()).toEqual([])
    reportError(new TypeError('Failed to fetch'), notices, quiet)
    expect(notices.list()).toMatchObject([{ count: 1 }])
  })

  it('shows a few at most, the newest', () => {
    const notices = new ErrorNotices()
    for (let i = 0; i < MAX_NOTICES + 2; i++) reportError(new ApiError(400, 'bad_request', `bad ${i}`), notices, quiet)
    expect(notices.list().map((n) => n.message)).toEqual(['bad 2', 'bad 3', 'bad 4'])
  })

  it('leaves a critical error to the session and says nothing of a cancelled call', () => {
    const notices = new ErrorNotices()
    const log = { warn: vi.fn(), error: vi.fn() }
    reportError(new ApiError(401, 'critical', 'A CRITICAL error occurred'), notices, log)
    reportError(new DOMException('The operation was aborted.', 'AbortError'), notices, log)
    expect(notices.list()).toEqual([])
    expect(log.warn).toHaveBeenCalledTimes(2)
    expect(log.error).not.toHaveBeenCalled()
  })
})

describe('ErrorToasts', () => {
  it('shows each notice until it is dismissed', async () => {
    const notices = new ErrorNotices()
    render(<ErrorToasts store={notices} />)
    expect(screen.queryByRole('alert')).toBeNull()
    act(() => {
      reportError(new TypeError('Failed to fetch'), notices, quiet)
      reportError(new TypeError('Failed to fetch'), notices, quiet)
    })
    const alert = screen.getByRole('alert')
    expect(alert.textContent).toContain(`${NETWORK} (timeout)`)
    expect(alert.textContent).toContain('2 times')
    expect(alert.textContent).not.toContain('Failed to fetch')
    act(() => screen.getByRole('button', { name: 'Dismiss' }).click())
    expect(screen.queryByRole('alert')).toBeNull()
  })
})
