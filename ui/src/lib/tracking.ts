// The numbers of serial- and batch-tracked items as a booking carries them: one serial number per
// unit, or batches whose quantities add up to the booking's quantity, in Exact Online's own shape.
import type { Schema } from '../api/contract.ts'
import type { MessageKey } from '../i18n/index.ts'

export type Tracking = Schema<'TrackedBy'>
export type SerialNumber = Schema<'SerialNumber'>
export type BatchNumber = Schema<'BatchNumber'>

/** What a booking's body (or one of its lines) carries for a tracked item. */
export interface TrackedNumbers {
  SerialNumbers?: SerialNumber[]
  BatchNumbers?: BatchNumber[]
}

/** Whether a flag of the copy is set: Items carry Booleans, material plans Bytes (0/1). */
const isSet = (v: unknown) => v === true || v === 1 || v === '1' || v === 'true'

/** The flags a row of the copy may carry (an Items row's, or a material plan's). */
export interface TrackingFlags {
  IsSerialItem?: unknown
  IsBatchItem?: unknown
  IsSerial?: unknown
  IsBatch?: unknown
}

/**
 * How an item is tracked, from an Items row (`IsSerialItem`, `IsBatchItem`) or a material plan's
 * (`IsSerial`, `IsBatch`).
 */
export function trackingOf(row: TrackingFlags | null | undefined): Tracking {
  if (!row) return 'none'
  if (isSet(row.IsSerialItem) || isSet(row.IsSerial)) return 'serial'
  if (isSet(row.IsBatchItem) || isSet(row.IsBatch)) return 'batch'
  return 'none'
}

/** The first tracking any of the rows names (a material plan line's, then its item's). */
export function trackingOfAny(...rows: (TrackingFlags | null | undefined)[]): Tracking {
  for (const r of rows) {
    const t = trackingOf(r)
    if (t !== 'none') return t
  }
  return 'none'
}

/** How many serial numbers a quantity needs: one per unit, so only a whole quantity has a count (0 for a count of none). */
export function serialsNeeded(quantity: number | null): number | null {
  return quantity !== null && quantity >= 0 && Number.isInteger(quantity) ? quantity : null
}

export type SerialRefusal = 'tracking.serialEmpty' | 'tracking.serialDuplicate' | 'tracking.serialsFull'

/**
 * The list with `code` added as the next number, or why not: an empty code, a number already in
 * the list (compared as Exact does, without regard to case), or a list that has all it needs.
 */
export function addSerial(list: readonly string[], code: string, quantity: number | null): { list: string[]; refused: SerialRefusal | null } {
  const number = code.trim()
  if (!number) return { list: [...list], refused: 'tracking.serialEmpty' }
  if (list.some((s) => s.toLowerCase() === number.toLowerCase())) return { list: [...list], refused: 'tracking.serialDuplicate' }
  const needed = serialsNeeded(quantity)
  if (needed !== null && list.length >= needed) return { list: [...list], refused: 'tracking.serialsFull' }
  return { list: [...list, number], refused: null }
}

/** A batch in stock at a place, as the server lists them (first-expiring, then oldest, first). */
export type StockBatch = Schema<'BatchInStock'>

/** Rounded to the six decimals quantities are kept in, so 0.1 + 0.2 adds up to 0.3. */
const round = (n: number) => Math.round(n * 1e6) / 1e6

/**
 * The quantity taken from each batch, in the list's order, up to `quantity`: the first-expiring
 * batch is emptied first. Batches without stock take nothing.
 */
export function prefillBatches(batches: readonly StockBatch[], quantity: number | null): number[] {
  let left = quantity !== null && quantity > 0 ? quantity : 0
  return batches.map((b) => {
    const take = round(Math.max(0, Math.min(b.quantity, left)))
    left = round(left - take)
    return take
  })
}

/** The batches with `number` moved to the front: the operator picked it to take from first. */
export function pickFirst(batches: readonly StockBatch[], number: string): StockBatch[] {
  const k = number.trim().toLowerCase()
  const picked = batches.filter((b) => b.number.toLowerCase() === k)
  return [...picked, ...batches.filter((b) => b.number.toLowerCase() !== k)]
}

/** A batch line of the booking: its number and quantity as typed (or prefilled), and a received batch's expiry date. */
export interface BatchLine {
  number: string
  quantity: string
  /** `2027-06-30`, or empty: only a batch received can be given one. */
  expiry?: string
}

/** The lines that carry a batch: a number and a quantity above 0 (`parse` reads what was typed). */
export function batchNumbers(lines: readonly BatchLine[], parse: (text: string) => number | null): BatchNumber[] {
  const out: BatchNumber[] = []
  for (const l of lines) {
    const q = parse(l.quantity)
    const number = l.number.trim()
    const expiry = l.expiry?.trim()
    if (number && q !== null && q > 0) out.push(expiry ? { BatchNumber: number, Quantity: q, EndDate: expiry } : { BatchNumber: number, Quantity: q })
  }
  return out
}

/** What the numbers of a booking report to its form: the body's part, and what still keeps it from booking. */
export interface NumbersReport {
  numbers: TrackedNumbers
  /** Null when the numbers are complete (or the item is not tracked). */
  problem: { key: MessageKey; values?: Record<string, string | number> } | null
}

/** An untracked item's report: nothing to add, nothing missing. */
export const UNTRACKED: NumbersReport = { numbers: {}, problem: null }

/** The report of a serial list for a quantity: complete when it has one number per unit. */
export function serialReport(list: readonly string[], quantity: number | null): NumbersReport {
  const needed = serialsNeeded(quantity)
  const numbers = { SerialNumbers: list.map((s) => ({ SerialNumber: s })) }
  if (quantity === null) return { numbers, problem: { key: 'tracking.needsQuantity' } }
  if (needed === null) return { numbers, problem: { key: 'tracking.serialWholeQuantity' } }
  if (list.length < needed) return { numbers, problem: { key: 'tracking.serialsMissing', values: { count: needed - list.length } } }
  if (list.length > needed) return { numbers, problem: { key: 'tracking.serialsTooMany', values: { count: list.length - needed } } }
  return { numbers, problem: null }
}

/**
 * The report of batch lines for a quantity: complete when every line is whole (number and a
 * quantity above 0), no batch comes twice, and the quantities add up to the booking's.
 */
export function batchReport(lines: readonly BatchLine[], quantity: number | null, parse: (text: string) => number | null): NumbersReport {
  const numbers = { BatchNumbers: batchNumbers(lines, parse) }
  const used = lines.filter((l) => l.number.trim() || l.quantity.trim())
  if (used.some((l) => !l.number.trim())) return { numbers, problem: { key: 'tracking.batchNoNumber' } }
  if (
    used.some((l) => {
      const q = parse(l.quantity)
      return q === null || q < 0
    })
  )
    return { numbers, problem: { key: 'tracking.batchBadQuantity' } }
  const seen = new Set<string>()
  for (const b of numbers.BatchNumbers) {
    const k = b.BatchNumber.toLowerCase()
    if (seen.has(k)) return { numbers, problem: { key: 'tracking.batchTwice', values: { number: b.BatchNumber } } }
    seen.add(k)
  }
  if (quantity === null || quantity < 0) return { numbers, problem: { key: 'tracking.needsQuantity' } }
  const sum = round(numbers.BatchNumbers.reduce((s, b) => s + b.Quantity, 0))
  if (Math.abs(sum - quantity) > 1e-9) return { numbers, problem: { key: 'tracking.batchSum', values: { sum, quantity } } }
  return { numbers, problem: null }
}
