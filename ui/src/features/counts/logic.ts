// Count sessions as the Counts screen shows them: what a count is of, which are still open,
// what starting one and counting a line take, the conflict the server asks about, and the
// review's pages. Pure, so the rules are tested without a browser.
import { isAdministrator, type Session } from '../../api/auth.ts'
import { isApiError } from '../../api/client.ts'
import type { BodyOf, Schema } from '../../api/contract.ts'
import { t, tCount, type MessageKey } from '../../i18n/index.ts'
import { fitsUnit, formatQty, parseQuantity } from '../../lib/quantity.ts'
import type { WarehouseRef } from '../../lib/places.ts'

export type CountSummary = Schema<'CountSummary'>
export type CountLine = Schema<'CountLine'>
export type CountScope = Schema<'CountScope'>
export type CountStatus = Schema<'CountStatus'>
export type ScopeKind = Schema<'ScopeKind'>
export type ReviewPage = Schema<'ReviewPage'>
export type ReviewRow = Schema<'ReviewRow'>
export type StartBody = BodyOf<'/counts', 'post'>
export type LineBody = BodyOf<'/counts/{id}/lines', 'post'>

export const KINDS: readonly ScopeKind[] = ['location', 'warehouse', 'itemGroup', 'items']

export const REVIEW_FILTERS = ['all', 'differences', 'counted', 'notCounted'] as const
export type ReviewFilter = (typeof REVIEW_FILTERS)[number]

/** Rows a review page asks for ("Show more" asks the next as many). */
export const REVIEW_PAGE = 200

/** Lines the counting panel lists, newest first: the review has all of them. */
export const LINES_SHOWN = 50

/** The server's code when an item was counted at a place before with another quantity. */
export const COUNT_CONFLICT = 'count_conflict'

/**
 * A count that still takes work here: being counted, or refused by Exact Online (reopened to
 * correct it, or removed). The others are on their way to Exact Online or there.
 */
export const isOpen = (c: Pick<CountSummary, 'status'>) => c.status === 'counting' || c.status === 'refused'

/** The list as the screen shows it: the open counts, then the sent ones, each newest first as the server gives them. */
export function splitCounts(counts: readonly CountSummary[]): { open: CountSummary[]; sent: CountSummary[] } {
  return { open: counts.filter(isOpen), sent: counts.filter((c) => !isOpen(c)) }
}

/** What a count is of, in words: "Location A-01 in warehouse 1", "Item group PLAAT in warehouse 1". */
export function scopeName(scope: CountScope): string {
  const warehouse = scope.warehouseCode
  switch (scope.kind) {
    case 'location':
      return t('counts.scope.location', { location: scope.locationCode || '?', warehouse })
    case 'warehouse':
      return t('counts.scope.warehouse', { warehouse })
    case 'itemGroup':
      return t('counts.scope.itemGroup', { group: scope.itemGroupCode || '?', warehouse })
    case 'items':
      return tCount('counts.scope.items', scope.items?.length ?? 0, { warehouse })
  }
}

/** Whether a warehouse keeps its stock in storage locations; an unknown flag (an older copy) means it does. */
export const usesLocations = (w: Pick<WarehouseRef, 'UseStorageLocations'>) => !(w.UseStorageLocations === 0 || w.UseStorageLocations === false)

/** The kinds of count a warehouse offers: a location only where it keeps storage locations. */
export const kindsFor = (w: Pick<WarehouseRef, 'UseStorageLocations'> | undefined): readonly ScopeKind[] =>
  !w || usesLocations(w) ? KINDS : KINDS.filter((k) => k !== 'location')

/** A storage location as the live list gives it. */
export interface StorageLocation {
  ID: string
  Code: string
  Description?: string | null
  Warehouse?: string | null
  WarehouseCode?: string | null
}

export interface Named {
  ID: string
  Code: string | null
}

export interface StartForm {
  kind: ScopeKind
  warehouse?: WarehouseRef
  location?: Named
  itemGroup?: Named
  items: readonly Named[]
  description: string
}

/** Why the count cannot be started yet, or null. */
export function startError(f: StartForm): MessageKey | null {
  if (!f.warehouse) return 'counts.error.noWarehouse'
  if (f.kind === 'location' && !usesLocations(f.warehouse)) return 'counts.error.noLocations'
  if (f.kind === 'location' && !f.location) return 'counts.error.noLocation'
  if (f.kind === 'itemGroup' && !f.itemGroup) return 'counts.error.noGroup'
  if (f.kind === 'items' && f.items.length === 0) return 'counts.error.noItems'
  return null
}

/** The body that starts the count (`startError` was null): the ids with the codes people know them by. */
export function startBody(f: StartForm): StartBody {
  const w = f.warehouse!
  const body: StartBody = {
    kind: f.kind,
    warehouse: w.ID.toLowerCase(),
    warehouseCode: (w.Code ?? '').trim(),
    usesLocations: usesLocations(w),
  }
  const description = f.description.trim()
  if (description) body.description = description
  if (f.kind === 'location' && f.location) {
    body.location = f.location.ID.toLowerCase()
    body.locationCode = (f.location.Code ?? '').trim()
  }
  if (f.kind === 'itemGroup' && f.itemGroup) {
    body.itemGroup = f.itemGroup.ID.toLowerCase()
    body.itemGroupCode = (f.itemGroup.Code ?? '').trim()
  }
  if (f.kind === 'items') body.items = f.items.map((i) => i.ID.toLowerCase())
  return body
}

/**
 * Why a counted quantity cannot be added, or null: a number (in the user's language, "2,5" in
 * Dutch), 0 or more, whole for an item Exact counts in whole units.
 */
export function quantityError(typed: string, fractions = true): MessageKey | null {
  const n = parseQuantity(typed)
  if (n === null) return 'counts.error.notNumber'
  if (n < 0) return 'counts.error.negative'
  if (!fitsUnit(n, fractions)) return 'counts.error.notWhole'
  return null
}

/**
 * Whether a line is counted at a location the counter chooses: in a warehouse with storage
 * locations, except a count of one location (its lines are all there).
 */
export const choosesLocation = (scope: CountScope) => scope.kind !== 'location' && scope.usesLocations

/** The location a new line is at: the count's own, the counter's choice, or none in a warehouse without them. */
export function lineLocation(scope: CountScope, chosen: string): string | null {
  if (scope.kind === 'location') return scope.location?.toLowerCase() ?? null
  if (!scope.usesLocations) return null
  return chosen ? chosen.toLowerCase() : null
}

/** The line already counted for the item at the location, if any (ids in either case). */
export function lineAt(lines: readonly CountLine[] | null | undefined, item: string, location: string | null): CountLine | undefined {
  const low = (v: string | null | undefined) => (v ? v.toLowerCase() : null)
  return lines?.find((l) => low(l.item) === low(item) && low(l.location) === low(location))
}

/** Whether a failed line is the server asking which of two counts stands. */
export const isConflict = (e: unknown) => isApiError(e, 409) && e.code === COUNT_CONFLICT

/** Lines newest first, as the counter added them. */
export const newestFirst = (lines: readonly CountLine[]) => [...lines].sort((a, b) => b.countedMs - a.countedMs)

/**
 * What the review follows: the lines' number and the latest count, so a line added, replaced or
 * removed (here or by another counter, seen when the count is read again) reads the review
 * again, and nothing else does.
 */
export function reviewStamp(c: Pick<CountSummary, 'lineCount' | 'lines'> | undefined): string {
  if (!c) return ''
  const latest = (c.lines ?? []).reduce((m, l) => Math.max(m, l.countedMs), 0)
  return `${c.lineCount}:${latest}`
}

/** The offset of the review's next page, or undefined once every matching row is shown. */
export function nextOffset(page: Pick<ReviewPage, 'offset' | 'rows' | 'matching'>): number | undefined {
  const shown = page.offset + page.rows.length
  return page.rows.length > 0 && shown < page.matching ? shown : undefined
}

/** Only an administrator processes a count (the server answers 403 to anyone else); anyone sends a draft. */
export const mayProcess = (s: Session | undefined) => isAdministrator(s)

/** How often the count is read again: quickly while it is on its way to Exact, now and then while counted. */
export function pollMs(status: CountStatus | undefined): number | false {
  if (status === 'sending') return 3_000
  if (status === 'counting') return 15_000
  return false
}

/** Removing is for a count not sent, or one Exact Online refused (the server answers 409 otherwise). */
export const mayRemove = (status: CountStatus) => status === 'counting' || status === 'refused'

/** A difference as the review writes it: signed, "—" while not counted. */
export const formatDifference = (d: number | null | undefined) => (d === null || d === undefined ? '—' : formatQty(d, true))
