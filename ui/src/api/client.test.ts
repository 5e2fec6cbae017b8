import { describe, expect, it } from 'vitest'
import { setLanguage } from '../i18n/index.ts'
import { json } from '../test/fixtures.ts'
import { api, ApiError, isNetworkFailure, NETWORK_ERROR_STATUS, onApiError, onReachability } from './client.ts'

describe('api', () => {
  it('sends JSON with the session cookie and parses the answer', async () => {
    let seen: RequestInit | undefined
    let url = ''
    const fake = (async (u: string, init?: RequestInit) => {
      url = u
      seen = init
      return json({ ok: 1 })
    }) as typeof fetch
    await expect(api('/x', { method: 'POST', body: { a: 1 }, fetchImpl: fake })).resolves.toEqual({ ok: 1 })
    expect(url).toBe('/api/v1/x')
    expect(seen?.credentials).toBe('same-origin')
    expect(seen?.body).toBe('{"a":1}')
  })

  it("asks for the server's messages in the UI's language", async () => {
    const languages: (string | undefined)[] = []
    const fake = (async (_u: string, init?: RequestInit) => {
      languages.push((init?.headers as Record<string, string> | undefined)?.['Accept-Language'])
      return json({})
    }) as typeof fetch
    setLanguage('nl', false)
    await api('/x', { fetchImpl: fake })
    setLanguage('en', false)
    await api('/x', { fetchImpl: fake })
    expect(languages).toEqual(['nl', 'en'])
  })

  it('turns the server error into an ApiError', async () => {
    const fake = (async () => json({ error: { code: 'licence_invalid', message: 'This licence code is not valid' } }, 400)) as typeof fetch
    const e = await api('/x', { fetchImpl: fake }).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(ApiError)
    expect(e).toMatchObject({ status: 400, code: 'licence_invalid', message: 'This licence code is not valid' })
  })

  it('reads the provider message of a refused write', async () => {
    const fake = (async () => json({ state: 'failed', error: 'Code already exists', entries: [] }, 422)) as typeof fetch
    await expect(api('/exact/items', { method: 'POST', body: {}, fetchImpl: fake })).rejects.toMatchObject({
      status: 422,
      code: 'refused',
      message: 'Code already exists',
    })
  })

  it('handles 204 and non-JSON errors', async () => {
    await expect(api('/x', { fetchImpl: (async () => new Response(null, { status: 204 })) as typeof fetch })).resolves.toBeUndefined()
    await expect(api('/x', { fetchImpl: (async () => new Response('teapot', { status: 418 })) as typeof fetch })).rejects.toMatchObject({
      status: 418,
      code: '-',
      message: 'HTTP 418',
    })
  })
})

const NETWORK = 'Function code timed out or there was a network issue / try executing the call again'
const failing = (e: unknown) => (async () => Promise.reject(e)) as typeof fetch

describe('api when the server cannot be reached', () => {
  it.each([
    ['Chromium', new TypeError('Failed to fetch')],
    ['Firefox', new TypeError('NetworkError when attempting to fetch resource.')],
    ['Safari', new TypeError('Load failed')],
    ['a timeout signal', new DOMException('signal timed out', 'TimeoutError')],
  ])('turns %s’s failure into the catalogue’s network message and code', async (_, raw) => {
    const e = await api('/x', { fetchImpl: failing(raw) }).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(ApiError)
    expect(e).toMatchObject({ status: NETWORK_ERROR_STATUS, code: 'timeout', message: NETWORK })
  })

  it('says it in Dutch for a Dutch user', async () => {
    setLanguage('nl', false)
    try {
      const e = await api('/x', { fetchImpl: failing(new TypeError('Failed to fetch')) }).catch((x: unknown) => x)
      expect((e as Error).message).toBe('Er was een time-out of een netwerkprobleem / probeer het opnieuw')
    } finally {
      setLanguage('en', false)
    }
  })

  it('also when the answer breaks off, or a gateway answers for a server that is gone', async () => {
    const cutOff = new Response(new ReadableStream({ start: (c) => c.error(new TypeError('network error')) }), { status: 200 })
    await expect(api('/x', { fetchImpl: (async () => cutOff) as typeof fetch })).rejects.toMatchObject({ code: 'timeout', message: NETWORK })
    await expect(api('/x', { fetchImpl: (async () => new Response('<html>Bad Gateway</html>', { status: 502 })) as typeof fetch })).rejects.toMatchObject({
      status: 502,
      code: 'timeout',
      message: NETWORK,
    })
    // a captive portal's page instead of the server's JSON
    await expect(
      api('/x', { fetchImpl: (async () => new Response('<html>Sign in to the Wi-Fi</html>', { status: 200 })) as typeof fetch }),
    ).rejects.toMatchObject({ code: 'timeout', message: NETWORK })
  })

  it('keeps a gateway status the server answered itself', async () => {
    const unavailable = json({ error: { code: 'provider_unreachable', message: 'Exact Online cannot be reached right now' } }, 503)
    await expect(api('/x', { fetchImpl: (async () => unavailable) as typeof fetch })).rejects.toMatchObject({
      status: 503,
      code: 'provider_unreachable',
    })
  })

  it('passes a cancelled call on as it is', async () => {
    const abort = new DOMException('The operation was aborted.', 'AbortError')
    await expect(api('/x', { fetchImpl: failing(abort) })).rejects.toBe(abort)
  })
})

describe('onApiError', () => {
  it('hears every failed call until it stops listening', async () => {
    const heard: string[] = []
    const stop = onApiError((e) => heard.push(`${e.status} ${e.code}`))
    const critical = json({ error: { code: 'critical', message: 'A CRITICAL error occurred' } }, 401)
    await api('/x', { fetchImpl: (async () => critical) as typeof fetch }).catch(() => undefined)
    await api('/x', { fetchImpl: failing(new TypeError('Failed to fetch')) }).catch(() => undefined)
    await api('/x', { fetchImpl: (async () => json({ ok: 1 })) as typeof fetch })
    stop()
    await api('/x', { fetchImpl: failing(new TypeError('Failed to fetch')) }).catch(() => undefined)
    expect(heard).toEqual(['401 critical', '0 timeout'])
  })
})

describe('onReachability', () => {
  it('hears a call that met a network failure as unreachable and any answer of the server as reachable', async () => {
    const heard: boolean[] = []
    const stop = onReachability((reachable) => heard.push(reachable))
    const down = (async () => {
      throw new TypeError('Failed to fetch')
    }) as typeof fetch
    const e = await api('/x', { fetchImpl: down }).catch((x: unknown) => x)
    expect(isNetworkFailure(e)).toBe(true)
    expect(String((e as Error).message)).not.toMatch(/Failed to fetch/)
    await api('/x', { fetchImpl: (async () => json({ error: { code: 'forbidden', message: 'No' } }, 403)) as typeof fetch }).catch(() => null)
    await api('/x', { fetchImpl: (async () => new Response('<html>Bad gateway</html>', { status: 502 })) as typeof fetch }).catch(() => null)
    await api('/x', { fetchImpl: (async () => json({ ok: 1 })) as typeof fetch })
    stop()
    await api('/x', { fetchImpl: down }).catch(() => null)
    expect(heard).toEqual([false, true, false, true])
  })

  it('does not count a refusal or a timeout the server answered itself as a network failure', async () => {
    const refused = await api('/x', { fetchImpl: (async () => json({ error: { code: 'forbidden', message: 'No' } }, 403)) as typeof fetch }).catch(
      (x: unknown) => x,
    )
    expect(isNetworkFailure(refused)).toBe(false)
    expect(isNetworkFailure(new TypeError('Failed to fetch'))).toBe(false)
  })
})
