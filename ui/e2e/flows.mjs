// Steps the end-to-end specs and the screenshot script share.
import assert from 'node:assert/strict'
import { launchBrowser, startServer } from './server.mjs'

export const MOBILE_UA = 'Mozilla/5.0 (Linux; Android 14; TC58) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36'

/** Console errors other than the browser's own notes about 4xx answers a test provokes. */
export function watchConsole(page) {
  const errors = []
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(m.text())
  })
  page.on('pageerror', (e) => errors.push(String(e)))
  return errors
}

/** Home → the simulator's sign-in form (first demo user) → back in the app. */
export async function signIn(page, base, { button = 'Sign in with Exact Online' } = {}) {
  await page.goto(base + '/')
  await page.getByRole('button', { name: button }).click()
  await page.getByRole('button', { name: 'Approve' }).click()
  // Sign-in may wait a few seconds for the provider's minute budget after busy specs.
  await page.waitForURL(/\/(license-code|dashboard)\?division=\d+/, { timeout: 60_000 })
}

/** Activates the organization on the licence page, when it asks. */
export async function activate(page, base, code) {
  if (!/\/license-code/.test(page.url())) return
  await page.locator('#licence-code').fill(code)
  await page.locator('form button[type=submit]').click()
  await page.waitForURL(new RegExp(`^${base}/dashboard\\?division=\\d+`))
}

export async function api(page, path, init) {
  const url = new URL('/api/v1' + path, page.url()).href
  const res = init?.method === 'POST' ? await page.request.post(url, { data: init.body ?? {} }) : await page.request.get(url)
  assert.ok(res.ok(), `${path} answered ${res.status()}`)
  return res.status() === 204 ? null : res.json()
}

/** Waits until no sync runs (the server's own state). */
export async function syncSettled(page, timeoutMs = 120_000) {
  const end = Date.now() + timeoutMs
  while (Date.now() < end) {
    const s = await api(page, '/sync')
    if (!s.running && s.last_sync) return s
    await page.waitForTimeout(500)
  }
  throw new Error('the sync did not finish')
}

/** The rows the simulator holds for a path of one division (its test door), e.g. what a
 * booking made in the app left in Exact Online. */
export async function simulatorRows(server, division, path) {
  const res = await fetch(`${server.lines.Simulator}/_sim/rows/${division}/${path}`)
  assert.ok(res.ok, `simulator rows of ${path}: ${res.status}`)
  return res.json()
}

/** Sets the simulator's faults (`{ latency_ms: 600 }` slows every answer; `{}` clears them). */
export async function simulatorFaults(server, body) {
  const res = await fetch(`${server.lines.Simulator}/_sim/faults`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  assert.ok(res.ok, `faults: ${res.status}`)
}

/** Asks `check` every 300 ms until it gives something truthy, and returns that. */
export async function waitFor(check, what, timeoutMs = 120_000) {
  const end = Date.now() + timeoutMs
  while (Date.now() < end) {
    const found = await check()
    if (found) return found
    await new Promise((r) => setTimeout(r, 300))
  }
  throw new Error(`timed out waiting for ${what}`)
}

/** Milliseconds of an Exact Online date (`/Date(ms)/`). */
export const msOf = (v) => Number(/\/Date\((-?\d+)/.exec(v)[1])

/** The yyyy-mm-dd of a provider date's milliseconds (its wall-clock day). */
export const iso = (ms) => new Date(ms).toISOString().slice(0, 10)

/** Equal ids (Exact's GUIDs come in either case). */
export const same = (a, b) => String(a).toLowerCase() === String(b).toLowerCase()

/** What most specs start from: the demo server, a browser, and a page (with `contextOptions`)
 * signed in to the activated demo organization, its data synced. Stops what it started when a
 * step fails, so a spec's after() need not know how far it got. */
export async function syncedDemo(contextOptions) {
  const server = await startServer('demo')
  let browser
  try {
    browser = await launchBrowser()
    const context = await browser.newContext(contextOptions)
    const page = await context.newPage()
    const errors = watchConsole(page)
    await signIn(page, server.url)
    await activate(page, server.url, server.lines['Licence code'])
    const division = new URL(page.url()).searchParams.get('division')
    await api(page, '/sync', { method: 'POST', body: {} })
    await syncSettled(page, 300_000)
    return { server, browser, context, page, errors, division }
  } catch (e) {
    await browser?.close()
    await server.stop()
    throw e
  }
}

/** Types `code` into Scanning's scan box and presses Enter, as a handheld's scanner does. */
export async function scanCode(page, code) {
  await page.locator('#scan-input').focus()
  await page.keyboard.type(code)
  await page.keyboard.press('Enter')
}
