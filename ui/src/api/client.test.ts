import { describe, expect, it } from 'vitest'
import { json } from '../test/fixtures.ts'
import { api, ApiError } from './client.ts'

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

  it('turns the server error into an ApiError', async () => {
    const fake = (async () =>
      json({ error: { code: 'licence_invalid', message: 'This licence code is not valid' } }, 400)) as typeof fetch
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

  it('handles 204, non-JSON errors and network failures', async () => {
    await expect(api('/x', { fetchImpl: (async () => new Response(null, { status: 204 })) as typeof fetch })).resolves.toBeUndefined()
    await expect(
      api('/x', { fetchImpl: (async () => new Response('bad gateway', { status: 502 })) as typeof fetch }),
    ).rejects.toMatchObject({ status: 502, code: '-', message: 'HTTP 502' })
    await expect(
      api('/x', { fetchImpl: (async () => Promise.reject(new TypeError('Failed to fetch'))) as typeof fetch }),
    ).rejects.toMatchObject({ status: 0, code: 'network' })
  })
})
