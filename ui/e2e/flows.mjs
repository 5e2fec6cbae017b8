// Steps the end-to-end specs and the screenshot script share.
import assert from 'node:assert/strict'

export const MOBILE_UA =
  'Mozilla/5.0 (Linux; Android 14; TC58) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36'

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
