import { describe, expect, expectTypeOf, it, vi } from 'vitest'
import { call, pathOf, type BodyOf, type Reply, type Route, type Schema, type VerbOf } from './contract.ts'

describe('pathOf', () => {
  it('fills in the path parameters, encoded', () => {
    expect(pathOf('/hours/timers/{id}', { id: 'a b/c' })).toBe('/hours/timers/a%20b%2Fc')
    expect(pathOf('/outbox/{id}/retry', { id: 7 })).toBe('/outbox/7/retry')
  })

  it('adds the query, leaving out what is not set', () => {
    expect(pathOf('/exact/urlDirect', undefined, { url: 'a?b=c&d', skip: undefined })).toBe('/exact/urlDirect?url=a%3Fb%3Dc%26d')
    expect(pathOf('/hours/timers', undefined, {})).toBe('/hours/timers')
  })

  it('refuses a path parameter that is missing rather than calling a wrong route', () => {
    expect(() => pathOf('/hours/timers/{id}', {})).toThrow(/'id'/)
  })
})

describe('call', () => {
  it('sends the method, the filled-in path and the body', async () => {
    const fetchImpl = vi.fn(async () => new Response(JSON.stringify({ now: 1, timers: [] }), { status: 200 }))
    const list = await call('get', '/hours/timers', { fetchImpl })
    expect(list.timers).toEqual([])
    await call('delete', '/hours/timers/{id}', { params: { id: 'x1' }, fetchImpl: async () => new Response(null, { status: 204 }) })
    expect(fetchImpl.mock.calls[0]).toEqual(['/api/v1/hours/timers', expect.objectContaining({ method: 'GET' })])
  })

  it('types answers and bodies from the server document', () => {
    // checked by `npm run lint` (tsc): a changed answer on the server breaks these
    expectTypeOf<Reply<'/hours/timers', 'get'>>().toEqualTypeOf<Schema<'TimerList'>>()
    expectTypeOf<Reply<'/hours/timers', 'post'>>().toEqualTypeOf<Schema<'Timer'>>()
    expectTypeOf<Reply<'/hours/timers/{id}', 'delete'>>().toEqualTypeOf<void>()
    expectTypeOf<BodyOf<'/hours/timers', 'post'>>().toEqualTypeOf<Schema<'StartBody'>>()
    expectTypeOf<VerbOf<'/hours/timers'>>().toEqualTypeOf<'get' | 'post'>()
    expectTypeOf<'/hours/timers'>().toExtend<Route>()
    expectTypeOf<'/no/such/route'>().not.toExtend<Route>()
  })
})
