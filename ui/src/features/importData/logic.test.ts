import { describe, expect, it } from 'vitest'
import { checkHeader, firstLine, percent, timeLeft } from './logic.ts'

const header = (over: Record<string, unknown> = {}) =>
  JSON.stringify({
    format: 'stock-manager-export',
    version: 1,
    division: 3154102,
    name: 'Van Dijk',
    exported_at: '2026-11-22T01:00:00',
    last_sync: null,
    tables: { items: 1000, shopOrders: 150, bad: 'x' },
    ...over,
  })

describe('checkHeader', () => {
  it('accepts an export of the signed-in organization and reads its counts', () => {
    const r = checkHeader(header(), 3154102)
    expect(r).toEqual({
      ok: true,
      header: { division: 3154102, name: 'Van Dijk', exported_at: '2026-11-22T01:00:00', last_sync: null, tables: { items: 1000, shopOrders: 150 } },
    })
  })
  it('refuses another organization, naming it', () => {
    expect(checkHeader(header({ division: 3154117 }), 3154102)).toEqual({ ok: false, reason: 'otherDivision', division: 3154117 })
  })
  it('refuses what is not an export', () => {
    expect(checkHeader('', 1)).toEqual({ ok: false, reason: 'empty' })
    expect(checkHeader('Code;Description', 1)).toEqual({ ok: false, reason: 'notJson' })
    expect(checkHeader('{"table":"items","row":{}}', 1)).toEqual({ ok: false, reason: 'notExport' })
    expect(checkHeader('[1,2]', 1)).toEqual({ ok: false, reason: 'notExport' })
    expect(checkHeader(header({ version: 2 }), 3154102)).toEqual({ ok: false, reason: 'version' })
  })
})

describe('helpers', () => {
  it('firstLine', () => {
    expect(firstLine('a\nb\nc')).toBe('a')
    expect(firstLine('only')).toBe('only')
  })
  it('percent', () => {
    expect(percent(0, 0)).toBe(0)
    expect(percent(50, 200)).toBe(25)
    expect(percent(300, 200)).toBe(100)
  })
  it('timeLeft', () => {
    expect(timeLeft(545_000, 0)).toBe('9:05')
    expect(timeLeft(0, 5000)).toBe('0:00')
  })
})
