// Items found by what a user typed or scanned: the pickers of the Transfers and Counts screens.
import { codeOrBarcode, dbGet, likeValue } from './db.ts'

export interface FoundItem {
  ID: string
  Code: string
  Description: string
  Unit?: string
  IsFractionAllowedItem?: boolean | number | null
  /** Tracked by serial or batch number (Booleans, or 0/1). */
  IsSerialItem?: boolean | number | null
  IsBatchItem?: boolean | number | null
}

const ITEM_FIELDS = 'ID,Code,Description,Unit,Barcode,IsFractionAllowedItem,IsSerialItem,IsBatchItem'
/** Candidates shown when the text is not a code or barcode. */
const CANDIDATES = 20

/** An exact code or barcode first; else items whose code or description contains the text. */
export async function findItems(typed: string): Promise<FoundItem[]> {
  const v = typed.trim()
  if (!v) return []
  const exact = await dbGet<FoundItem>('items', [
    ['or', codeOrBarcode(v)],
    ['select', ITEM_FIELDS],
    ['limit', '5'],
  ])
  if (exact.length) return exact
  const like = likeValue(v)
  return dbGet<FoundItem>('items', [
    ['or', `(Code.ilike.${like},Description.ilike.${like})`],
    ['select', ITEM_FIELDS],
    ['order', 'Code.asc'],
    ['limit', String(CANDIDATES)],
  ])
}
