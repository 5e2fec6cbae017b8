// What a print of labels starts with, the same on every screen that prints them: the label type
// Global Settings choose for the source, the default printer when it can print that type, and
// the copies of each label.
import type { LabelSelection, LabelSource } from '../api/labels.ts'
import { usablePrinters, type Printer } from '../api/org.ts'
import { t } from '../i18n/index.ts'
import type { OrgSettings } from './orgSettings.ts'

/** Label types by name, with the number the server also takes (spec §9). */
const TYPE_NUMBERS = {
  'electrical-72001926': 1,
  'electrical-72001925': 2,
  'electrical-x4': 3,
  'electrical-NEW': 4,
  'cnc-new': 6,
  receipts: 7,
} as const

export type LabelTypeName = keyof typeof TYPE_NUMBERS

export const LABEL_TYPES = Object.keys(TYPE_NUMBERS) as LabelTypeName[]

/** The server's limit on copies of one print. */
export const MAX_COPIES = 100

/** The type's name and number, for a name (any case) or a number; null for neither. */
function resolveType(type: string): { name: LabelTypeName; number: number } | null {
  const wanted = type.trim().toLowerCase()
  for (const [name, number] of Object.entries(TYPE_NUMBERS)) {
    if (name.toLowerCase() === wanted || String(number) === wanted) return { name: name as LabelTypeName, number }
  }
  return null
}

/** The type's own name for a name in any case or a number ('7' is 'receipts'); anything else as it is. */
export function canonicalType(type: string): string {
  return resolveType(type)?.name ?? type
}

/**
 * What a user reads for a label type (a name in any case, or its number): the label and its size,
 * "Goods receipt (76.2 × 44.45 mm)". A value this version does not know is shown as it is, with
 * the type the server prints it as. What is stored and sent stays the type's own value.
 */
export function labelTypeName(type: string): string {
  const known = resolveType(type)
  if (known) return t(`labels.typeName.${known.name}`)
  return t('labels.typeName.unknown', { type, fallback: t('labels.typeName.electrical-72001926') })
}

/** The label type Global Settings choose for labels of `source`. */
export function labelTypeFor(settings: OrgSettings, source: LabelSource): string {
  switch (source) {
    case 'shop_order':
      return settings.label_type_shop_order
    case 'item_direct':
      return settings.label_type_item
    case 'goods_receipt':
      return settings.label_type_receipt
  }
}

/** Whether the printer holds media for the type, judged as the server does (no list: any type). */
export function printerTakes(printer: Printer, type: string): boolean {
  const listed = Array.isArray(printer.label_types) ? printer.label_types.filter((x): x is string => typeof x === 'string') : []
  if (listed.length === 0) return true
  const resolved = resolveType(type)
  if (!resolved) return false
  return listed.some((x) => x.trim().toLowerCase() === resolved.name.toLowerCase() || x.trim() === String(resolved.number))
}

/** The printers that take jobs and can print the type. */
export function printersFor(printers: Printer[] | undefined, type: string): Printer[] {
  return usablePrinters(printers).filter((p) => printerTakes(p, type))
}

/**
 * The printer to print on: the user's pick (null: none made yet) or else the default printer,
 * as long as it can print the type; '' when there is none.
 */
export function chosenPrinter(picked: string | null, settings: OrgSettings, printers: Printer[] | undefined, type: string): string {
  const wanted = picked ?? settings.default_printer
  return wanted && printersFor(printers, type).some((p) => p.name === wanted) ? wanted : ''
}

/** Copies of each label (Global Settings), as a whole number the server takes. */
export function labelCopies(settings: OrgSettings): number {
  const n = settings.label_copies
  return Number.isFinite(n) ? Math.min(MAX_COPIES, Math.max(1, Math.round(n))) : 1
}

export interface CopiesPlan {
  /** The ids of the request, the PDF's and the printer's alike. */
  ids: LabelSelection[]
  /** The request's `copies` of the whole batch. */
  batchCopies: number
}

/**
 * How `copies` of every label are asked for. Item and goods receipt labels default to one label
 * per record, so the copies go into each print count (a count the user typed is multiplied too).
 * A shop order's counts come from its quantities on the server (the planned quantity of what it
 * makes, each by-product's own), so its copies are copies of the whole batch.
 */
export function planCopies(source: LabelSource, ids: readonly LabelSelection[], copies: number): CopiesPlan {
  if (source === 'shop_order' || copies === 1) return { ids: [...ids], batchCopies: copies }
  const counted = ids.map((s): LabelSelection => {
    const id = typeof s === 'string' ? s : s.id
    const count = typeof s === 'string' ? 1 : (s.print_count ?? 1)
    return { id, print_count: count * copies }
  })
  return { ids: counted, batchCopies: 1 }
}
