// Sign-in against the demo's simulated Exact Online: licence, Dashboard, reload, logout, expiry.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { launchBrowser, startServer } from './server.mjs'

let server
let browser

before(async () => {
  server = await startServer('demo')
  browser = await launchBrowser()
})

after(async () => {
  await browser?.close()
  await server?.stop()
})

/** Console errors other than the browser's own notes about 4xx answers the test provokes. */
function watchConsole(page) {
  const errors = []
  page.on('console', (m) => {
    if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(m.text())
  })
  page.on('pageerror', (e) => errors.push(String(e)))
  return errors
}

/** Home → "Sign in with Exact Online" → the simulator's form (first demo user) → back in the app. */
async function signIn(page, base) {
  await page.goto(base + '/')
  await page.getByRole('button', { name: 'Sign in with Exact Online' }).click()
  await page.getByRole('button', { name: 'Approve' }).click()
  await page.waitForURL(/\/(license-code|dashboard)\?division=\d+/)
}

async function sessionTier(page) {
  const res = await page.request.get(new URL('/api/v1/auth/session', page.url()).href)
  assert.equal(res.status(), 200)
  return (await res.json()).tier
}

test('a signed-out user is sent Home from a guarded route', async () => {
  const page = await browser.newPage()
  await page.goto(server.url + '/dashboard?division=1')
  await page.waitForURL(server.url + '/')
  await page.getByRole('button', { name: 'Sign in with Exact Online' }).waitFor()
  await page.close()
})

test('sign in, activate with the licence code, reload, and log out through the dialog', async () => {
  const context = await browser.newContext()
  const page = await context.newPage()
  const errors = watchConsole(page)

  await signIn(page, server.url)
  assert.match(page.url(), /\/license-code\?division=\d+&customer=/)
  const division = new URL(page.url()).searchParams.get('division')

  // a wrong code shows the server's message and stays on the page
  await page.getByLabel('Licence code').fill('not-a-licence-code')
  await page.getByRole('button', { name: 'Activate' }).click()
  const alert = page.locator('#licence-error')
  await alert.waitFor()
  assert.ok((await alert.innerText()).length > 0)
  assert.match(page.url(), /\/license-code/)

  await page.getByLabel('Licence code').fill(server.lines['Licence code'])
  await page.getByRole('button', { name: 'Activate' }).click()
  await page.waitForURL(`${server.url}/dashboard?division=${division}`)
  await page.getByTestId('dashboard-division').filter({ hasText: division }).waitFor()
  await page.getByRole('button', { name: 'Sync Data' }).waitFor()
  assert.equal(await sessionTier(page), 'full')

  // the navigation bar names the customer, linking to the provider's portal
  assert.equal(await page.locator(`header a[href$="MenuPortal.aspx?_Division_=${division}"]`).count(), 1)

  await page.reload()
  await page.getByTestId('dashboard-division').filter({ hasText: division }).waitFor()
  assert.match(page.url(), /\/dashboard\?division=/)

  // No keeps the session
  await page.getByRole('button', { name: 'Settings' }).click()
  await page.getByRole('menuitem', { name: 'Logout' }).click()
  const dialog = page.getByRole('dialog', { name: 'Are you sure you want to logout?' })
  await dialog.waitFor()
  await dialog.getByRole('button', { name: 'No' }).click()
  await dialog.waitFor({ state: 'hidden' })
  assert.match(page.url(), /\/dashboard/)
  assert.equal(await sessionTier(page), 'full')

  // Yes ends it
  await page.getByRole('button', { name: 'Settings' }).click()
  await page.getByRole('menuitem', { name: 'Logout' }).click()
  await dialog.getByRole('button', { name: 'Yes' }).click()
  await page.waitForURL(server.url + '/')
  await page.getByRole('button', { name: 'Sign in with Exact Online' }).waitFor()
  assert.equal(await sessionTier(page), 'public')
  assert.equal(await page.evaluate(() => localStorage.getItem('selectedEndpoints')), null)

  assert.deepEqual(errors, [])
  await context.close()
})

test('an activated organization signs in straight to the Dashboard; a handheld gets no cog', async () => {
  const context = await browser.newContext({
    viewport: { width: 400, height: 800 },
    userAgent: 'Mozilla/5.0 (Linux; Android 14; TC58) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Mobile Safari/537.36',
  })
  const page = await context.newPage()
  await signIn(page, server.url)
  assert.match(page.url(), /\/dashboard\?division=\d+$/)
  await page.getByRole('banner').getByText('ESM', { exact: true }).waitFor()
  assert.equal(await page.getByRole('button', { name: 'Settings' }).count(), 0)
  await page.getByRole('button', { name: 'Logout' }).click()
  await page.getByRole('dialog').getByRole('button', { name: 'Yes' }).click()
  await page.waitForURL(server.url + '/')
  await context.close()
})

test('a user Exact Online refuses is signed out, and Home says why', async (t) => {
  // its own server: what the simulator refuses is simulator-wide
  const own = await startServer('demo')
  const context = await browser.newContext()
  try {
    const sim = own.lines.Simulator
    const res = await fetch(sim + '/_sim/token-lifetime', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ seconds: 40 }),
    })
    assert.ok(res.ok, `token-lifetime answered ${res.status}`)

    const page = await context.newPage()
    await signIn(page, own.url)
    await page.getByLabel('Licence code').fill(own.lines['Licence code'])
    await page.getByRole('button', { name: 'Activate' }).click()
    await page.waitForURL(/\/dashboard\?division=\d+/)

    // the demo signs in as user 0; an administrator removes them from the company in Exact
    const revoked = await fetch(sim + '/_sim/users/0/revoke', { method: 'POST' })
    assert.ok(revoked.ok)
    const start = Date.now()
    // 40-second tokens are renewed in the background with 30 s left (looked for every 10 s): the
    // refusal signs the user out, and Home says why
    // (a screen reading Exact live may be told first and say so for a moment: Home is where it ends)
    await page.waitForURL((u) => u.pathname === '/', { timeout: 60_000 })
    await page.getByText('Exact Online no longer accepts your sign-in').waitFor({ timeout: 10_000 })
    t.diagnostic(`signed out ${((Date.now() - start) / 1000).toFixed(1)} s after the refusal`)
    assert.equal(await sessionTier(page), 'public')
    await page.getByRole('button', { name: 'Sign in with Exact Online' }).waitFor()
  } finally {
    await context.close()
    await own.stop()
  }
})
