// The organization's settings (Global Settings) read from its preferences with their defaults:
// the settings screen edits them, and the label printing everywhere reads them.
import type { Preferences } from '../api/org.ts'

/** The organization preferences the Global Settings screen edits, with their defaults. */
export interface OrgSettings {
  weekends_disabled: boolean
  sync_interval_minutes: number
  /** The user id whose Exact Online sign-in the sync, live reads and labels use; '' = automatic. */
  sync_account: string
  default_printer: string
  label_type_shop_order: string
  label_type_item: string
  label_type_receipt: string
  label_copies: number
  /** Warehouse codes whose stock is left off labels (none for a new organization). */
  label_skipped_warehouses: string[]
}

/**
 * The settings as saved, with their defaults; `syncIntervalDefault` is the server's interval for
 * organizations that set none.
 */
export function readSettings(p: Preferences, syncIntervalDefault = 15): OrgSettings {
  const str = (k: string, d: string) => (typeof p[k] === 'string' ? (p[k] as string) : d)
  const num = (k: string, d: number) => (typeof p[k] === 'number' ? (p[k] as number) : d)
  return {
    weekends_disabled: p.weekends_disabled === true,
    sync_interval_minutes: num('sync_interval_minutes', syncIntervalDefault),
    sync_account: str('sync_account', ''),
    default_printer: str('default_printer', ''),
    label_type_shop_order: str('label_type_shop_order', 'electrical-72001926'),
    label_type_item: str('label_type_item', 'electrical-72001926'),
    label_type_receipt: str('label_type_receipt', 'receipts'),
    label_copies: num('label_copies', 1),
    label_skipped_warehouses: Array.isArray(p.label_skipped_warehouses) ? p.label_skipped_warehouses.filter((c): c is string => typeof c === 'string') : [],
  }
}

/**
 * The preferences to save: the form over what was there (unknown keys other screens keep are
 * carried over). An interval never set and left at the server's default stays unset, so the
 * organization keeps following the server's setting.
 */
export function toSave(prefs: Preferences, form: OrgSettings, syncIntervalDefault: number): Preferences {
  const out: Preferences = { ...prefs, ...form }
  if (!('sync_interval_minutes' in prefs) && form.sync_interval_minutes === syncIntervalDefault) delete out.sync_interval_minutes
  return out
}
