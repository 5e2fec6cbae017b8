// A handheld in a Wi-Fi dead spot (390×844): once the service worker keeps the app, opening it
// without the server shows the app and its offline state, not the browser's error page; calls
// made meanwhile say the catalogue's message, never "Failed to fetch"; back online it all goes.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { activate, MOBILE_UA, signIn, watchConsole } from './flows.mjs'
import { launchBrowser, startServer } from './server.mjs'

const VIEW = { width: 390, height: 844 }
const OFFLINE = "Can't reach Stock Manager — working offline"
const NETWORK = 'Function code timed out or there was a network issue / try executing the call again'

let server
let browser
let context
let page
let errors

before(async () => {
  server = await startServer('demo')
  browser = await launchBrowser()
  context = await browser.newContext({ viewport: VIEW, userAgent: MOBILE_UA, hasTouch: true, isMobile: true, locale: 'en-GB' })
  page = await context.newPage()
  errors = watchConsole(page)
  await signIn(page, server.url)
  await activate(page, server.url, server.lines['Licence code'])
})

after(async () => {
  await browser?.close()
  await server?.stop()
})

const bodyText = () => page.locator('body').innerText()

test('the app is installable: manifest, icons and a service worker that controls the page', async () => {
  const manifest = await page.evaluate(async () => {
    const link = document.querySelector('link[rel=manifest]')
    const res = await fetch(link.href)
    return { type: res.headers.get('content-type'), body: await res.json() }
  })
  assert.equal(manifest.type, 'application/manifest+json')
  assert.equal(manifest.body.display, 'standalone')
  assert.ok(manifest.body.icons.some((i) => i.sizes === '512x512' && i.type === 'image/png'), 'a 512 px PNG icon')
  await page.getByRole('banner').getByRole('button', { name: 'Menu' }).click()
  await page.getByRole('navigation').getByRole('link', { name: 'Warehouse' }).click()
  await page.waitForURL(/\/scanning\?division=\d+/)
  await page.locator('#scan-input').waitFor()
  // installed, its shell precached, and in charge of this page
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30_000 })
  const kept = await page.evaluate(async () => {
    const keys = await caches.keys()
    const cache = await caches.open(keys.find((k) => k.startsWith('esm-shell-')))
    return (await cache.keys()).map((r) => new URL(r.url).pathname)
  })
  assert.ok(kept.includes('/index.html'), 'the shell is kept')
  assert.ok(kept.some((p) => /^\/assets\/Scanning-.*\.js$/.test(p)), `the Scanning screen's code is kept: ${kept.join(' ')}`)
  assert.ok(!kept.some((p) => p.startsWith('/api/')), 'no API answer is kept')
})

test('a scan made offline says the catalogue message and the offline banner shows', async () => {
  await context.setOffline(true)
  await page.locator('#scan-input').focus()
  await page.keyboard.type('OFFLINE-CODE-1')
  await page.keyboard.press('Enter')
  const notice = page.getByTestId('scan-notice')
  await notice.waitFor({ timeout: 30_000 })
  assert.equal((await notice.innerText()).trim(), NETWORK)
  await page.getByTestId('offline').getByText(OFFLINE).waitFor()
  assert.doesNotMatch(await bodyText(), /Failed to fetch/)
})

test('reloading without the server shows the app with its offline state, not the browser error', async () => {
  // the service worker itself is offline too, so the page can only come from its cache
  const [worker] = context.serviceWorkers()
  assert.ok(worker, 'a service worker runs')
  assert.equal(await worker.evaluate(() => fetch('/index.html', { cache: 'no-store' }).then(() => 'reached', () => 'offline')), 'offline')
  const res = await page.reload()
  assert.ok(res?.fromServiceWorker(), 'the page came from the service worker')
  await page.getByTestId('offline').getByText(OFFLINE).waitFor({ timeout: 30_000 })
  // the session could not be checked: the catalogue's message where Scanning was asked for
  await page.getByTestId('unreached').getByText(NETWORK).waitFor({ timeout: 30_000 })
  assert.match(page.url(), /\/scanning\?division=\d+/, 'the screen asked for stays in the address')
  const text = await bodyText()
  assert.doesNotMatch(text, /Failed to fetch|ERR_INTERNET_DISCONNECTED|No internet/)
})

test('back online the banner goes and the screen comes back by itself', async () => {
  await context.setOffline(false)
  await page.getByTestId('offline').waitFor({ state: 'detached', timeout: 30_000 })
  await page.locator('#scan-input').waitFor({ timeout: 30_000 })
  assert.doesNotMatch(await bodyText(), /Failed to fetch/)
  assert.deepEqual(
    errors.filter((e) => !/net::ERR_INTERNET_DISCONNECTED|Failed to fetch|network issue/.test(e)),
    [],
    'no console errors besides the refused calls',
  )
})
