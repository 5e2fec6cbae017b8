// The local copy (`/api/v1/db/…`, PostgREST conventions) and the live provider lists.
// The document types the rows of both as free-form `TableRow`s, and `/db/{table}` takes any
// column as a PostgREST filter (a key may repeat), which its query parameters do not list: the
// reads keep their callers' row types and their own query string.
import { queryOptions } from '@tanstack/react-query'
import { barcodeForms } from '../lib/scan.ts'
import { api } from './client.ts'
import { call, callDated } from './contract.ts'
import type { LiveRows } from './live.ts'
import { liveKeys } from './queries.ts'

/** Query pairs; a key may repeat (two `or` groups are both applied). */
export type Params = [string, string][]

/** The server's largest page. */
export const MAX_LIMIT = 1000

export type Row = Record<string, unknown>

function qs(params: Params): string {
  const q = new URLSearchParams()
  for (const [k, v] of params) q.append(k, v)
  const s = q.toString()
  return s ? `?${s}` : ''
}

export const dbGet = <T = Row>(table: string, params: Params = []) => api<T[]>(`/db/${table}${qs(params)}`)

export interface Join {
  source: string
  joinOn: string[]
  joinOnSelf: string[]
}

/** Base rows of `table` with the first match of each join merged in as `{source}.{field}`. */
export const dbJoins = <T = Row>(table: string, joins: Join[], params: Params = []) =>
  api<T[]>(`/db/joins${qs([['table', table], ['joins', JSON.stringify(joins)], ['flatten', 'true'], ...params])}`)

export const dbClear = (table: string) => call('delete', '/db/{table}', { params: { table } })

/**
 * Every row matching `params`, page by page until a page is short: a screen that stopped at a
 * page count would leave out the rest of a large organization without saying so.
 */
export async function dbGetAll<T = Row>(table: string, params: Params): Promise<T[]> {
  return allPages((page) => dbGet<T>(table, [...params, ['limit', String(MAX_LIMIT)], ['offset', String(page * MAX_LIMIT)]]))
}

/** Every base row of a join query, page by page as `dbGetAll`. */
export async function dbJoinsAll<T = Row>(table: string, joins: Join[], params: Params): Promise<T[]> {
  return allPages((page) => dbJoins<T>(table, joins, [...params, ['limit', String(MAX_LIMIT)], ['offset', String(page * MAX_LIMIT)]]))
}

/**
 * Pages in flight at once after a full first page. A window, not batches: each page read that
 * ends starts the next, so one slow page (or a main thread busy parsing the one before) does
 * not hold back the others. Four leave two of the browser's six connections to a host for the
 * screen's other reads.
 */
export const PAGES_AT_ONCE = 4

async function allPages<T>(read: (page: number) => Promise<T[]>): Promise<T[]> {
  // most answers fit one page: only a full one is followed
  const first = await read(0)
  if (first.length < MAX_LIMIT) return first
  const pages: T[][] = [first]
  // the first short page seen: nothing after it is asked for, or kept
  let end = Infinity
  let next = 1
  const reader = async () => {
    while (next < end) {
      const page = next++
      const rows = await read(page)
      pages[page] = rows
      if (rows.length < MAX_LIMIT) end = Math.min(end, page)
    }
  }
  await Promise.all(Array.from({ length: PAGES_AT_ONCE }, reader))
  return pages.slice(0, end + 1).flat()
}

/** Values for a PostgREST `in.(…)` list; GUIDs need no quoting. */
export function inList(values: readonly string[]): string {
  return `in.(${values.map((v) => (/^[\w-]+$/.test(v) ? v : `"${v.replace(/"/g, '\\"')}"`)).join(',')})`
}

/** A value inside `or=(…)`, quoted so commas, dots and brackets are taken literally. */
export const orValue = (v: string) => `"${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`

/**
 * The `or` filter for an item named by a scan: its code, or its barcode in any of the forms one
 * GTIN is written in (see `barcodeForms`), so a box's EAN-13 finds the item Exact keeps as UPC-A.
 */
export function codeOrBarcode(code: string): string {
  return `(${[`Code.eq.${orValue(code)}`, ...barcodeForms(code).map((f) => `Barcode.eq.${orValue(f)}`)].join(',')})`
}

/** `list` in chunks of `size`, so a URL stays short. */
export function chunks<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = []
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size))
  return out
}

/** A value for an `ilike` pattern: the user's text, with the pattern characters taken literally where possible. */
export function likeValue(text: string): string {
  // `*` and `%` are wildcards and `,()` end a value inside `or=(…)`; drop them from the search
  return `*${text.replace(/[*%,()"\\]/g, ' ').trim()}*`
}

export interface LiveRow {
  ID: string
  Code: string
  Description: string
}

export type LiveTable = 'warehouses' | 'storageLocations' | 'selectionCodes' | 'itemGroups' | 'operations' | 'employees'

/** A live list; dated when the server answered from its stored copy because Exact Online could not be reached. */
export async function liveGet<T = LiveRow>(table: LiveTable): Promise<LiveRows<T>> {
  const { body, asOf } = await callDated('get', '/exact/live/{table}', { params: { table } })
  // the provider's rows of this list, as the caller names their fields
  return { rows: body as T[], asOf }
}

/** The query of a live list in the organization, so every screen reading it shares one cache entry. */
export const liveListQuery = <T = LiveRow>(table: LiveTable, division: number) =>
  queryOptions({ queryKey: liveKeys.list(table, division), queryFn: () => liveGet<T>(table) })
