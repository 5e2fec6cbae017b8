import { describe, expect, it } from 'vitest'
import { ApiError } from '../api/client.ts'
import { catalogueEntry, CustomError, errorOutcome, userMessage } from './errors.ts'
import { t } from '../i18n/index.ts'

const NETWORK = 'Function code timed out or there was a network issue / try executing the call again'

describe('errorOutcome', () => {
  it('shows a custom error with its code and takes its redirect', () => {
    const e = new CustomError('Error while getting Warehouses from Exact', { code: 'warehouses', redirectTo: '/mng' })
    expect(errorOutcome(e, '/dashboard')).toEqual({
      title: 'custom',
      detail: 'Error while getting Warehouses from Exact (warehouses)',
      redirect: '/mng',
    })
    expect(errorOutcome(new CustomError('x'), '/dashboard')).toMatchObject({ detail: 'x (-)', redirect: '/dashboard' })
  })

  it('sends any other error to the fallback as "An error has occurred"', () => {
    expect(errorOutcome(new TypeError('boom'), '/')).toEqual({ title: 'generic', detail: 'boom', redirect: '/' })
    expect(errorOutcome('text', '/')).toEqual({ title: 'generic', detail: null, redirect: '/' })
  })

  it('says a failed call in the catalogue’s words, never the browser’s', () => {
    expect(errorOutcome(new TypeError('Failed to fetch'), '/')).toEqual({ title: 'generic', detail: `${NETWORK} (timeout)`, redirect: '/' })
    expect(errorOutcome(new ApiError(502, 'provider', 'Exact Online returned an error'), '/')).toMatchObject({
      detail: 'Exact Online returned an error (provider)',
    })
  })
})

describe('catalogueEntry', () => {
  it('keeps the message and code a call failed with', () => {
    expect(catalogueEntry(new ApiError(409, 'sync_running', 'A sync is already running'))).toEqual({
      message: 'A sync is already running',
      code: 'sync_running',
    })
    expect(catalogueEntry(new CustomError('Join parameters lengths must match', { code: 'join' }))).toEqual({
      message: 'Join parameters lengths must match',
      code: 'join',
    })
  })

  it('turns every browser’s failed fetch into the network message', () => {
    for (const raw of ['Failed to fetch', 'NetworkError when attempting to fetch resource.', 'Load failed', 'network error']) {
      expect(catalogueEntry(new TypeError(raw))).toEqual({ message: NETWORK, code: 'timeout' })
    }
    expect(catalogueEntry(new DOMException('signal timed out', 'TimeoutError'))).toEqual({ message: NETWORK, code: 'timeout' })
  })

  it('calls anything else the unknown error, and a cancelled call nothing', () => {
    const unknown = { message: expect.stringMatching(/^UNKNOWN ERROR OCCURRED: Please provide your local programmer/), code: '-' }
    expect(catalogueEntry(new TypeError("Cannot read properties of undefined (reading 'x')"))).toEqual(unknown)
    expect(catalogueEntry('thrown text')).toEqual(unknown)
    expect(catalogueEntry(undefined)).toEqual(unknown)
    expect(catalogueEntry(new DOMException('The operation was aborted.', 'AbortError'))).toBeNull()
  })
})

describe('userMessage', () => {
  it("gives the catalogue's sentence, never a browser's or a program's own text", () => {
    expect(userMessage(new ApiError(409, 'E42', 'The order is already complete.'))).toBe('The order is already complete.')
    expect(userMessage(new TypeError('Failed to fetch'))).toBe(t('error.network'))
    expect(userMessage(new TypeError("Cannot read properties of undefined (reading 'ID')"))).toBe(t('error.unknown'))
    expect(userMessage('weird')).toBe(t('error.unknown'))
  })
  it('says nothing for no error and for a cancelled call', () => {
    expect(userMessage(null)).toBe('')
    expect(userMessage(undefined)).toBe('')
    expect(userMessage(new DOMException('The user aborted a request.', 'AbortError'))).toBe('')
  })
})
