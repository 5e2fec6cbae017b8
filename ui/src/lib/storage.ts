// The browser storage keys the app owns. Logout removes exactly these from localStorage
// (and clears sessionStorage), so the next user starts clean.

export const STORAGE_KEYS = {
  selectedEndpoints: 'selectedEndpoints',
  /** The last signed-in session, for opening the app without the server (a Wi-Fi dead spot). */
  keptSession: 'esm.session.kept',
  /** The serial and batch numbers in stock last read per item and place (for a Wi-Fi dead spot). */
  keptNumbers: 'esm.tracking.kept',
} as const

export const APP_LOCAL_KEYS: readonly string[] = Object.values(STORAGE_KEYS)

/** Reads a JSON value; null when missing, unreadable or storage is blocked. */
export function readJson(storage: Storage, key: string): unknown {
  try {
    const raw = storage.getItem(key)
    return raw === null ? null : (JSON.parse(raw) as unknown)
  } catch {
    return null
  }
}

export function writeJson(storage: Storage, key: string, value: unknown): void {
  try {
    storage.setItem(key, JSON.stringify(value))
  } catch {
    // storage full or blocked: the choice just is not remembered
  }
}
