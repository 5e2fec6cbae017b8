import { afterEach, describe, expect, it } from 'vitest'
import { ApiError } from '../../api/client.ts'
import { setLanguage } from '../../i18n/index.ts'
import { session } from '../../test/fixtures.ts'
import { countLine, countSummary } from './testData.ts'
import {
  isConflict,
  kindsFor,
  lineAt,
  lineLocation,
  mayProcess,
  mayRemove,
  newestFirst,
  nextOffset,
  pollMs,
  quantityError,
  reviewStamp,
  scopeName,
  splitCounts,
  startBody,
  startError,
  type CountScope,
  type CountSummary,
} from './logic.ts'

afterEach(() => setLanguage('en', false))

const W1 = '0BADC0DE-0000-4000-8000-000000000008'
const scope = (over: Partial<CountScope> = {}): CountScope => ({
  kind: 'warehouse',
  warehouse: W1.toLowerCase(),
  warehouseCode: '1',
  usesLocations: true,
  ...over,
})

const count = (over: Partial<CountSummary> = {}): CountSummary => countSummary({ scope: scope(), lineCount: 0, ...over })
const line = countLine

describe('the list of counts', () => {
  it('puts the open counts (and those Exact refused) before the sent ones, keeping the newest first', () => {
    const list = [
      count({ id: 'a', status: 'processed' }),
      count({ id: 'b', status: 'counting' }),
      count({ id: 'c', status: 'sending' }),
      count({ id: 'd', status: 'refused', error: 'Artikel geblokkeerd' }),
      count({ id: 'e', status: 'draft' }),
    ]
    const { open, sent } = splitCounts(list)
    expect(open.map((c) => c.id)).toEqual(['b', 'd'])
    expect(sent.map((c) => c.id)).toEqual(['a', 'c', 'e'])
  })

  it('says what a count is of, in either language', () => {
    expect(scopeName(scope({ kind: 'location', locationCode: 'A-01' }))).toBe('Location A-01 in warehouse 1')
    expect(scopeName(scope())).toBe('Warehouse 1')
    expect(scopeName(scope({ kind: 'itemGroup', itemGroupCode: 'PLAAT' }))).toBe('Item group PLAAT in warehouse 1')
    expect(scopeName(scope({ kind: 'items', items: ['i1'] }))).toBe('1 item in warehouse 1')
    setLanguage('nl', false)
    expect(scopeName(scope({ kind: 'items', items: ['i1', 'i2'] }))).toBe('2 artikelen in magazijn 1')
    expect(scopeName(scope({ kind: 'location', locationCode: 'A-01' }))).toBe('Locatie A-01 in magazijn 1')
  })
})

describe('starting a count', () => {
  const located = { ID: W1, Code: '1', UseStorageLocations: 1 }
  const whole = { ID: 'w2', Code: '2', UseStorageLocations: 0 }

  it('offers a location count only for a warehouse that keeps storage locations (an unknown flag does)', () => {
    expect(kindsFor(located)).toContain('location')
    expect(kindsFor({ ...located, UseStorageLocations: null })).toContain('location')
    expect(kindsFor(whole)).toEqual(['warehouse', 'itemGroup', 'items'])
    expect(kindsFor(undefined)).toHaveLength(4)
  })

  it('asks for what each kind needs', () => {
    const base = { description: '', items: [] }
    expect(startError({ ...base, kind: 'warehouse' })).toBe('counts.error.noWarehouse')
    expect(startError({ ...base, kind: 'location', warehouse: whole })).toBe('counts.error.noLocations')
    expect(startError({ ...base, kind: 'location', warehouse: located })).toBe('counts.error.noLocation')
    expect(startError({ ...base, kind: 'itemGroup', warehouse: whole })).toBe('counts.error.noGroup')
    expect(startError({ ...base, kind: 'items', warehouse: whole })).toBe('counts.error.noItems')
    expect(startError({ ...base, kind: 'warehouse', warehouse: whole })).toBeNull()
  })

  it('sends the ids in lower case with the codes people know them by, and only the kind’s fields', () => {
    const form = { kind: 'location' as const, warehouse: located, location: { ID: 'LOC-A', Code: 'A-01 ' }, items: [], description: '  Rack A ' }
    expect(startBody(form)).toEqual({
      kind: 'location',
      warehouse: W1.toLowerCase(),
      warehouseCode: '1',
      usesLocations: true,
      description: 'Rack A',
      location: 'loc-a',
      locationCode: 'A-01',
    })
    expect(startBody({ kind: 'items', warehouse: whole, items: [{ ID: 'I1', Code: 'X' }], description: '' })).toEqual({
      kind: 'items',
      warehouse: 'w2',
      warehouseCode: '2',
      usesLocations: false,
      items: ['i1'],
    })
  })
})

describe('a counted line', () => {
  it('reads the quantity in the user’s language: 2,5 in Dutch, 0 allowed, never below', () => {
    setLanguage('nl', false)
    expect(quantityError('2,5')).toBeNull()
    expect(quantityError('2.500')).toBeNull()
    expect(quantityError('0')).toBeNull()
    expect(quantityError('-1')).toBe('counts.error.negative')
    expect(quantityError('twee')).toBe('counts.error.notNumber')
    expect(quantityError('')).toBe('counts.error.notNumber')
    expect(quantityError('2,5', false)).toBe('counts.error.notWhole')
    expect(quantityError('3', false)).toBeNull()
  })

  it('is counted at the count’s own location, the chosen one, or none in a warehouse without them', () => {
    expect(lineLocation(scope({ kind: 'location', location: 'LOC-A' }), 'loc-b')).toBe('loc-a')
    expect(lineLocation(scope({ usesLocations: false }), 'loc-b')).toBeNull()
    expect(lineLocation(scope(), 'LOC-B')).toBe('loc-b')
    expect(lineLocation(scope(), '')).toBeNull()
  })

  it('finds the earlier line of the item at that place, ids in either case', () => {
    const lines = [line(), line({ id: 'l2', location: null, locationCode: null, quantity: 3 })]
    expect(lineAt(lines, 'I1', 'LOC-A')?.id).toBe('l1')
    expect(lineAt(lines, 'i1', null)?.id).toBe('l2')
    expect(lineAt(lines, 'i2', 'loc-a')).toBeUndefined()
    expect(lineAt(undefined, 'i1', null)).toBeUndefined()
  })

  it('tells the conflict question from other refusals', () => {
    expect(isConflict(new ApiError(409, 'count_conflict', 'BOLT-M8 at A-01 was counted as 98 by Jan de Vries: which count stands?'))).toBe(true)
    expect(isConflict(new ApiError(409, 'count_closed', 'sent'))).toBe(false)
    expect(isConflict(new ApiError(400, 'bad_request', 'tracked'))).toBe(false)
    expect(isConflict(new Error('count_conflict'))).toBe(false)
  })

  it('lists the newest first', () => {
    const lines = [line({ id: 'old', countedMs: 1 }), line({ id: 'new', countedMs: 3 }), line({ id: 'mid', countedMs: 2 })]
    expect(newestFirst(lines).map((l) => l.id)).toEqual(['new', 'mid', 'old'])
  })
})

describe('the review', () => {
  it('pages until every matching row is shown', () => {
    const rows = (n: number) => Array.from({ length: n }, () => ({}) as never)
    expect(nextOffset({ offset: 0, rows: rows(200), matching: 450 })).toBe(200)
    expect(nextOffset({ offset: 400, rows: rows(50), matching: 450 })).toBeUndefined()
    expect(nextOffset({ offset: 0, rows: rows(0), matching: 3 })).toBeUndefined()
  })

  it('is read again when a line is added, replaced or removed, not otherwise', () => {
    const one = count({ lineCount: 1, lines: [line()] })
    expect(reviewStamp(one)).toBe(reviewStamp(count({ lineCount: 1, lines: [line()], status: 'counting' })))
    expect(reviewStamp(one)).not.toBe(reviewStamp(count({ lineCount: 1, lines: [line({ quantity: 97, countedMs: 1_780_000_000_500 })] })))
    expect(reviewStamp(one)).not.toBe(reviewStamp(count({ lineCount: 0, lines: [] })))
  })
})

describe('who does what', () => {
  it('lets only an administrator process; removing is for a count not sent, or refused', () => {
    expect(mayProcess(session({ administrator: 'listed' }))).toBe(true)
    expect(mayProcess(session({ administrator: 'none' }))).toBe(false)
    expect(mayProcess(undefined)).toBe(false)
    expect(mayRemove('counting')).toBe(true)
    expect(mayRemove('refused')).toBe(true)
    expect(mayRemove('draft')).toBe(false)
    expect(mayRemove('sending')).toBe(false)
  })

  it('reads the count again every few seconds while it is on its way, now and then while counted', () => {
    expect(pollMs('sending')).toBe(3_000)
    expect(pollMs('counting')).toBe(15_000)
    expect(pollMs('processed')).toBe(false)
    expect(pollMs(undefined)).toBe(false)
  })
})
