// The browser's own database for what a handheld keeps while the server cannot be reached:
// bookings waiting to be sent and the scan catalogue. One database, its stores made here, so a
// new store is one more line in `STORES` and one version up.

const DB_NAME = 'esm-offline'
const DB_VERSION = 1

/** Store name → the field that keys its records. */
const STORES = {
  /** Bookings made while the server could not be reached, keyed by their idempotency key. */
  bookings: 'key',
  /** The scan catalogue, one record per organization. */
  catalogue: 'division',
} as const

export type StoreName = keyof typeof STORES

/** What a store offers: every record, one by key, put, delete and delete all. */
export interface KeyedStore<T> {
  all(): Promise<T[]>
  get(key: IDBValidKey): Promise<T | undefined>
  put(value: T): Promise<void>
  delete(key: IDBValidKey): Promise<void>
  clear(): Promise<void>
}

let opening: Promise<IDBDatabase> | null = null

function open(): Promise<IDBDatabase> {
  if (!opening) {
    opening = new Promise<IDBDatabase>((resolve, reject) => {
      if (typeof indexedDB === 'undefined') {
        reject(new Error('This browser keeps no data offline (no IndexedDB).'))
        return
      }
      const req = indexedDB.open(DB_NAME, DB_VERSION)
      req.onupgradeneeded = () => {
        for (const [name, keyPath] of Object.entries(STORES)) {
          if (!req.result.objectStoreNames.contains(name)) req.result.createObjectStore(name, { keyPath })
        }
      }
      req.onsuccess = () => {
        // another tab's newer version asks this one to let go
        req.result.onversionchange = () => {
          req.result.close()
          opening = null
        }
        resolve(req.result)
      }
      req.onerror = () => reject(req.error ?? new Error('IndexedDB could not be opened'))
      req.onblocked = () => reject(new Error('IndexedDB is held by another tab of an older version'))
    }).catch((e: unknown) => {
      opening = null
      throw e
    })
  }
  return opening
}

function run<R>(name: StoreName, mode: IDBTransactionMode, act: (s: IDBObjectStore) => IDBRequest<R>): Promise<R> {
  return open().then(
    (db) =>
      new Promise<R>((resolve, reject) => {
        const tx = db.transaction(name, mode)
        const req = act(tx.objectStore(name))
        // resolved when the transaction is committed, so a put is on disk before the UI says "kept"
        tx.oncomplete = () => resolve(req.result)
        tx.onabort = tx.onerror = () => reject(tx.error ?? req.error ?? new Error(`IndexedDB ${name} failed`))
      }),
  )
}

/** The named store of the offline database. */
export function idbStore<T>(name: StoreName): KeyedStore<T> {
  return {
    all: () => run(name, 'readonly', (s) => s.getAll() as IDBRequest<T[]>),
    get: (key) => run(name, 'readonly', (s) => s.get(key) as IDBRequest<T | undefined>),
    put: (value) => run(name, 'readwrite', (s) => s.put(value)).then(() => undefined),
    delete: (key) => run(name, 'readwrite', (s) => s.delete(key)).then(() => undefined),
    clear: () => run(name, 'readwrite', (s) => s.clear()).then(() => undefined),
  }
}

/** The same interface in memory: for tests, and for a browser without IndexedDB. */
export function memoryStore<T>(keyOf: (v: T) => IDBValidKey): KeyedStore<T> {
  const rows = new Map<string, T>()
  const id = (k: IDBValidKey) => JSON.stringify(k)
  return {
    all: async () => [...rows.values()],
    get: async (key) => rows.get(id(key)),
    put: async (value) => void rows.set(id(keyOf(value)), value),
    delete: async (key) => void rows.delete(id(key)),
    clear: async () => rows.clear(),
  }
}
