import { describe, expect, it, vi } from 'vitest'
import { json } from '../test/fixtures.ts'
import { setLanguage } from '../i18n/index.ts'
import { ApiError } from './client.ts'
import { labelsPdf, openLabelsPdf } from './labels.ts'

const REQUEST = { source: 'shop_order' as const, ids: ['so-1'], type: 'cnc-new' }

describe('labels PDF', () => {
  it("answers the catalogue's network message, not the browser's 'Failed to fetch'", async () => {
    const offline = (async () => {
      throw new TypeError('Failed to fetch')
    }) as typeof fetch
    const e = await labelsPdf(REQUEST, offline).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(ApiError)
    expect(e).toMatchObject({ status: 0, code: 'timeout', message: 'Function code timed out or there was a network issue / try executing the call again' })
  })

  it("asks in the user's language, so the warnings come back in it", async () => {
    let asked: string | null = null
    const answer = (async (_url: RequestInfo | URL, init?: RequestInit) => {
      asked = new Headers(init?.headers).get('Accept-Language')
      return new Response(new Blob(['%PDF']), { status: 200, headers: { 'x-label-result': '{"status":"SUCCESS","labels":1,"messages":[]}' } })
    }) as typeof fetch
    setLanguage('nl', false)
    try {
      await labelsPdf(REQUEST, answer)
      expect(asked).toBe('nl')
    } finally {
      setLanguage('en', false)
    }
  })

  it("closes the waiting tab and keeps the server's refusal", async () => {
    const refused = (async () =>
      json({ error: { code: 'no_labels', message: 'There are no labels to print that fit the desired criteria' } }, 422)) as typeof fetch
    const tab = { close: vi.fn(), location: { href: '' } } as unknown as Window
    await expect(openLabelsPdf(REQUEST, tab, refused)).rejects.toMatchObject({ status: 422, code: 'no_labels' })
    expect(tab.close).toHaveBeenCalled()
  })
})
