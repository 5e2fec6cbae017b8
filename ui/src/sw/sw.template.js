// The service worker (filled in at build time by vite.config.ts: the precache list and version).
// The app shell comes from the cache when the server cannot be reached; /api/ never does, so a
// screen's data is always the server's or the app's offline state.
const VERSION = __VERSION__
const PRECACHE = __PRECACHE__
const CACHE = `esm-shell-${VERSION}`
const SHELL = '/index.html'

self.addEventListener('install', (event) => {
  // `reload`: the server's copy, not the HTTP cache's (an index.html of the release before)
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(PRECACHE.map((url) => new Request(url, { cache: 'reload' }))))
      // a new release takes over once installed: a navigation is network-first anyway, so the
      // page loaded next is the new one, and offline the new shell is what is kept
      .then(() => self.skipWaiting()),
  )
})

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((keys) => Promise.all(keys.filter((k) => k.startsWith('esm-shell-') && k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  )
})

self.addEventListener('message', (event) => {
  if (event.data === 'skipWaiting') void self.skipWaiting()
})

self.addEventListener('fetch', (event) => {
  const request = event.request
  if (request.method !== 'GET') return
  const url = new URL(request.url)
  // the API stays network-only: a stored answer would show stale stock as if it were current
  if (url.origin !== self.location.origin || url.pathname.startsWith('/api/')) return
  if (request.mode === 'navigate') {
    // network-first: a reachable server always gives the current release; else the kept shell
    event.respondWith(fetch(request).catch(() => caches.match(SHELL, { cacheName: CACHE }).then((hit) => hit ?? Response.error())))
    return
  }
  // hashed files never change under their name: the kept copy is the right one
  event.respondWith(caches.match(request, { cacheName: CACHE }).then((hit) => hit ?? fetch(request)))
})
