import { describe, expect, it } from 'vitest'
import { fetchHealth, formatUptime } from './health.ts'

describe('formatUptime', () => {
  it('formats seconds, minutes and hours', () => {
    expect(formatUptime(5)).toBe('5 s')
    expect(formatUptime(65)).toBe('1 min 5 s')
    expect(formatUptime(3725)).toBe('1 h 2 min')
    expect(formatUptime(-3)).toBe('0 s')
  })
})

describe('fetchHealth', () => {
  it('returns the parsed record', async () => {
    const body = { status: 'ok', version: '0.1.0', uptime_seconds: 1, store: { status: 'ok' } }
    const fake = (async () => new Response(JSON.stringify(body), { status: 200 })) as typeof fetch
    await expect(fetchHealth(fake)).resolves.toEqual(body)
  })

  it('throws the server error message', async () => {
    const fake = (async () =>
      new Response(JSON.stringify({ error: { code: '-', message: 'boom' } }), { status: 500 })) as typeof fetch
    await expect(fetchHealth(fake)).rejects.toThrow('boom')
  })
})
