// What the service worker keeps for a start without the server: the app shell (index.html, every
// screen's hashed JS and CSS) and the installable app's files. Pure, so the build and a test share it.

/** Files of `public/` that are not in the bundle Vite reports but belong to the shell. */
export const PUBLIC_SHELL_FILES = ['/favicon.svg', '/manifest.webmanifest', '/icons/icon.svg', '/icons/icon-192.png', '/icons/icon-512.png']

/** The service worker's own file name, at the root so its scope is the whole app. */
export const SERVICE_WORKER_FILE = 'sw.js'

/** What a file kept for offline use ends in: pages, code, styles, pictures, fonts, and the camera's
 * bundled barcode decoder (.wasm), so a browser without its own decoder scans without the server too. */
const SHELL_FILE = /\.(html|js|css|svg|png|webp|woff2?|wasm)$/

/**
 * The URLs to precache from the build's output file names (Vite's bundle keys, relative to dist):
 * every shell file once, sorted, the service worker itself and source maps left out.
 */
export function precacheList(bundleFiles: readonly string[]): string[] {
  const fromBundle = bundleFiles.filter((f) => f !== SERVICE_WORKER_FILE && SHELL_FILE.test(f)).map((f) => '/' + f.replace(/^\/+/, ''))
  return [...new Set([...fromBundle, ...PUBLIC_SHELL_FILES])].sort()
}

/** A short, stable name of a precache list: a new list (a new release) gets a new cache. */
export function precacheVersion(list: readonly string[]): string {
  // FNV-1a: enough to tell releases apart, and it needs no Node or browser crypto
  let hash = 0x811c9dc5
  for (const ch of list.join('\n')) {
    hash ^= ch.codePointAt(0) ?? 0
    hash = Math.imul(hash, 0x01000193) >>> 0
  }
  return hash.toString(16).padStart(8, '0')
}

/** The service worker's source: its template with the list and the version filled in. */
export function serviceWorkerSource(template: string, list: readonly string[]): string {
  if (!template.includes('__PRECACHE__') || !template.includes('__VERSION__')) {
    throw new Error('the service worker template lacks __PRECACHE__ or __VERSION__')
  }
  return template.replace('__PRECACHE__', JSON.stringify(list)).replace('__VERSION__', JSON.stringify(precacheVersion(list)))
}
