// ImportItems: which column fills which item field, and what each row of the file becomes
// (create, update, or refused with its reasons). Pure, so the rules are tested without a page.
import { t, type MessageKey } from '../../i18n/index.ts'
import type { Sheet } from './sheet.ts'

export type FieldKind = 'text' | 'bool' | 'number' | 'group'

export interface FieldDef {
  key: string
  kind: FieldKind
  /** Needed in every row (Code), or only to create (Description). */
  required?: 'always' | 'create'
  max?: number
  /** Header names that map to the field without asking (lower case, no spaces). */
  aliases: string[]
}

/** The Exact Online item fields an import may set. */
export const FIELDS: readonly FieldDef[] = [
  { key: 'Code', kind: 'text', required: 'always', max: 30, aliases: ['code', 'itemcode', 'artikelcode', 'artikel', 'item'] },
  { key: 'Description', kind: 'text', required: 'create', max: 60, aliases: ['description', 'omschrijving', 'name', 'naam'] },
  { key: 'SearchCode', kind: 'text', max: 10, aliases: ['searchcode', 'zoekcode'] },
  { key: 'ItemGroup', kind: 'group', aliases: ['itemgroup', 'itemgroupcode', 'group', 'artikelgroep', 'groep'] },
  { key: 'Unit', kind: 'text', max: 8, aliases: ['unit', 'eenheid', 'unitcode'] },
  { key: 'Barcode', kind: 'text', max: 30, aliases: ['barcode', 'ean'] },
  { key: 'IsStockItem', kind: 'bool', aliases: ['isstockitem', 'stockitem', 'voorraadartikel', 'voorraad'] },
  { key: 'IsPurchaseItem', kind: 'bool', aliases: ['ispurchaseitem', 'purchaseitem', 'inkoopartikel', 'inkoop'] },
  { key: 'IsSalesItem', kind: 'bool', aliases: ['issalesitem', 'salesitem', 'verkoopartikel', 'verkoop'] },
  { key: 'CostPriceStandard', kind: 'number', aliases: ['costpricestandard', 'costprice', 'kostprijs', 'standaardkostprijs'] },
  { key: 'Notes', kind: 'text', aliases: ['notes', 'notities', 'opmerkingen'] },
]

/** The most rows one import takes. */
export const MAX_ROWS = 5000

/** Column index per field key; null leaves the field alone. */
export type Mapping = Record<string, number | null>

function norm(s: string): string {
  return s.toLowerCase().replace(/[^a-z0-9]/g, '')
}

export function fieldLabel(key: string): string {
  return t(`import.f.${key}` as MessageKey)
}

/** Maps each field to the first header that names it (by key or a known alias). */
export function autoMap(header: readonly string[]): Mapping {
  const names = header.map(norm)
  const used = new Set<number>()
  const out: Mapping = {}
  for (const f of FIELDS) {
    const wanted = [norm(f.key), ...f.aliases]
    const i = names.findIndex((n, idx) => !used.has(idx) && wanted.includes(n))
    out[f.key] = i >= 0 ? i : null
    if (i >= 0) used.add(i)
  }
  return out
}

/** Problems of the mapping itself (a needed field without a column). */
export function mappingErrors(mapping: Mapping): string[] {
  return FIELDS.filter((f) => f.required === 'always' && mapping[f.key] == null).map((f) => t('import.err.needsColumn', { field: fieldLabel(f.key) }))
}

const TRUE = new Set(['1', 'true', 'yes', 'y', 'ja', 'j', 'x', 'waar', 'wahr'])
const FALSE = new Set(['0', 'false', 'no', 'n', 'nee', 'onwaar', '-'])

export function parseBool(v: string): boolean | null {
  const s = v.trim().toLowerCase()
  if (TRUE.has(s)) return true
  if (FALSE.has(s)) return false
  return null
}

/** "1.234,56", "1,234.56", "12,5" and "12.5" as numbers; null when it is not one. */
export function parseNumber(v: string): number | null {
  let s = v.trim().replace(/\s/g, '')
  if (!s) return null
  const lastComma = s.lastIndexOf(',')
  const lastDot = s.lastIndexOf('.')
  if (lastComma > lastDot) s = s.replace(/\./g, '').replace(',', '.')
  else s = s.replace(/,/g, '')
  const n = Number(s)
  return Number.isFinite(n) ? n : null
}

export interface PlannedRow {
  /** Row number in the file (the header is row 1). */
  row: number
  code: string
  action: 'create' | 'update' | 'error'
  /** Exact Online fields to send. */
  data: Record<string, unknown>
  /** The existing item's ID for an update. */
  id?: string
  errors: string[]
}

/**
 * What each data row becomes. `existing` maps lower-case item codes to IDs (update), `groups`
 * lower-case item group codes to IDs. Empty cells leave a field alone on an update.
 */
export function planRows(sheet: Sheet, mapping: Mapping, existing: ReadonlyMap<string, string>, groups: ReadonlyMap<string, string>): PlannedRow[] {
  const seen = new Map<string, number>()
  return sheet.slice(1).map((cells, i) => {
    const row = i + 2
    const errors: string[] = []
    const data: Record<string, unknown> = {}
    const cell = (key: string) => {
      const col = mapping[key]
      return col == null ? '' : (cells[col] ?? '').trim()
    }
    const code = cell('Code')
    const id = code ? existing.get(code.toLowerCase()) : undefined
    for (const f of FIELDS) {
      const value = cell(f.key)
      const label = fieldLabel(f.key)
      if (!value) {
        if (f.required === 'always' || (f.required === 'create' && !id)) errors.push(t('import.err.required', { field: label }))
        continue
      }
      if (f.max && value.length > f.max) errors.push(t('import.err.tooLong', { field: label, max: f.max }))
      if (f.kind === 'text') data[f.key] = value
      else if (f.kind === 'bool') {
        const b = parseBool(value)
        if (b === null) errors.push(t('import.err.boolean', { field: label, value }))
        else data[f.key] = b
      } else if (f.kind === 'number') {
        const n = parseNumber(value)
        if (n === null) errors.push(t('import.err.number', { field: label, value }))
        else data[f.key] = n
      } else {
        const group = groups.get(value.toLowerCase())
        if (!group) errors.push(t('import.err.itemGroup', { value }))
        else data[f.key] = group
      }
    }
    if (code) {
      const first = seen.get(code.toLowerCase())
      if (first !== undefined) errors.push(t('import.err.duplicate', { code, row: first }))
      else seen.set(code.toLowerCase(), row)
    }
    if (errors.length) return { row, code, action: 'error', data, errors }
    return id ? { row, code, action: 'update', data, id, errors } : { row, code, action: 'create', data, errors }
  })
}
