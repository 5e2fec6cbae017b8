// What a scan is: the debouncing of a wedge scanner (or camera) and the classification of a
// code as a storage location, a shop order or an item. Pure, so both are tested without a browser.

/** A scanner that repeats the same code this quickly is bouncing, not scanning twice. */
export const REPEAT_WINDOW_MS = 100

/**
 * A gate for scans: `accept(code, nowMs)` is false for the same code again within `windowMs`
 * of the previous accepted one; another code, or the same after the window, passes.
 */
export function scanGate(windowMs: number = REPEAT_WINDOW_MS) {
  let last: { code: string; at: number } | null = null
  return {
    accept(code: string, nowMs: number): boolean {
      if (last && last.code === code && nowMs - last.at < windowMs) return false
      last = { code, at: nowMs }
      return true
    },
  }
}

/** A scan as read: no surrounding blanks and no control characters some scanners add (GS, CR). */
export function cleanScan(raw: string): string {
  // eslint-disable-next-line no-control-regex
  return raw.replace(/[\u0000-\u001f\u007f]/g, '').trim()
}

export interface LocationRef {
  ID: string
  Code: string
  Description?: string | null
  Warehouse?: string | null
  WarehouseCode?: string | null
  WarehouseDescription?: string | null
}

export type CodeKind =
  | { kind: 'empty' }
  | { kind: 'shopOrder'; number: number }
  | { kind: 'purchaseOrder'; number: number }
  /** `orderNumber`: a bare number that names no item may still be a shop order's number. */
  | { kind: 'item'; code: string; orderNumber: number | null }

export type ScanKind = CodeKind | { kind: 'location'; location: LocationRef }

/** Shop order numbers as printed on the order's papers: "SO 24098", "SO-24098" or "SO24098". */
const SHOP_ORDER = /^SO[\s-]?(\d{1,9})$/i
/** Purchase order numbers as the screens show them: "PO 40080", in Dutch "IO 40080" (inkooporder). */
const PURCHASE_ORDER = /^[PI]O[\s-]?(\d{1,9})$/i
/** A bare number short enough to be a shop order's; an EAN-13 or UPC barcode is longer. */
const BARE_NUMBER = /^\d{1,9}$/

/**
 * What a code names, for every scan box and search alike: a "SO"-prefixed number is a shop
 * order, a "PO"-prefixed one a purchase order; anything else is an item code or barcode, and a
 * bare number may also be an order's. Blanks and scanner control characters around the code do
 * not count.
 */
export function classifyCode(raw: string): CodeKind {
  const code = cleanScan(raw)
  if (!code) return { kind: 'empty' }
  const so = SHOP_ORDER.exec(code)
  if (so) return { kind: 'shopOrder', number: Number(so[1]) }
  const po = PURCHASE_ORDER.exec(code)
  if (po) return { kind: 'purchaseOrder', number: Number(po[1]) }
  return { kind: 'item', code, orderNumber: BARE_NUMBER.test(code) ? Number(code) : null }
}

/** The shop order number a code may name ("SO 24005" or 24005), or null. */
export function shopOrderNumberOf(raw: string): number | null {
  const kind = classifyCode(raw)
  return kind.kind === 'shopOrder' ? kind.number : kind.kind === 'item' ? kind.orderNumber : null
}

/**
 * What a scan names where storage locations can be scanned too: a location's code wins (they
 * are few and known), otherwise as `classifyCode`.
 */
export function classifyScan(code: string, locations: readonly LocationRef[]): ScanKind {
  const upper = cleanScan(code).toUpperCase()
  const location = upper ? locations.find((l) => l.Code.trim().toUpperCase() === upper) : undefined
  if (location) return { kind: 'location', location }
  return classifyCode(code)
}

/** A GTIN (EAN-8, UPC-A, EAN-13, GTIN-14): digits only, the zeros in front not part of the number. */
const GTIN = /^\d{8,14}$/
const GTIN_LENGTHS = [8, 12, 13, 14]

/**
 * The forms one barcode number is written in: a box's GTIN-14 or EAN-13 and the item's UPC-A
 * are the same number with more or fewer zeros in front, and Exact keeps whichever was typed.
 * Any other code is only itself.
 */
export function barcodeForms(raw: string): string[] {
  const code = cleanScan(raw)
  if (!GTIN.test(code)) return code ? [code] : []
  const core = code.replace(/^0+/, '')
  const forms = GTIN_LENGTHS.filter((n) => n >= core.length).map((n) => core.padStart(n, '0'))
  return [code, ...forms.filter((f) => f !== code)]
}

/** Whether two barcodes name the same thing (the same GTIN with other zeros in front, or equal). */
export function sameBarcode(a: string | null | undefined, b: string | null | undefined): boolean {
  const x = cleanScan(a ?? '')
  const y = cleanScan(b ?? '')
  if (!x || !y) return false
  if (x === y) return true
  return GTIN.test(x) && GTIN.test(y) && x.replace(/^0+/, '') === y.replace(/^0+/, '')
}
