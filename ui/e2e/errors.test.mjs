// Errors as a user meets them: a full-access screen opened before activation shows the way to
// activation rather than refused calls, and a server that goes away under a signed-in page is
// told in the catalogue's words, on the screen and for failures no screen handles, never in the
// browser's ("Failed to fetch").
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { activate, signIn, watchConsole } from './flows.mjs'
import { launchBrowser, startServer } from './server.mjs'

const NETWORK = 'Function code timed out or there was a network issue / try executing the call again'

let server
let serverStopped = false
let browser
let page
let errors
const refused = []

before(async () => {
  server = await startServer('demo')
  browser = await launchBrowser()
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-GB' })
  page = await context.newPage()
  errors = watchConsole(page)
  page.on('response', (res) => {
    if (res.url().includes('/api/v1/') && res.status() === 403) refused.push(`${res.status()} ${new URL(res.url()).pathname}`)
  })
})

after(async () => {
  await browser?.close()
  if (!serverStopped) await server?.stop()
})

test('a user whose organization is not activated opens Transfers and is shown the way to activation', async () => {
  await signIn(page, server.url)
  assert.match(page.url(), /\/license-code\?/, 'the demo organization starts without a licence')
  const division = new URL(page.url()).searchParams.get('division')

  await page.goto(`${server.url}/transfers?division=${division}`)
  const notice = page.getByTestId('activation-notice')
  await notice.waitFor()
  assert.match(await notice.innerText(), /This organization is not activated yet\./)
  // the screen and its calls stay away until then
  await page.waitForTimeout(1000)
  assert.equal(await page.getByLabel('Item').count(), 0)
  assert.deepEqual(refused, [], 'no call was refused')

  await notice.getByRole('link', { name: 'Enter a licence code' }).click()
  await page.waitForURL(/\/license-code\?division=\d+/)
  await activate(page, server.url, server.lines['Licence code'])
  await page.goto(`${server.url}/transfers?division=${division}`)
  await page.getByLabel('Item').waitFor()
  assert.equal(await page.getByTestId('activation-notice').count(), 0)
  assert.deepEqual(refused, [])
})

test('with the server gone, the user reads the catalogue’s network message, not the browser’s', async () => {
  // signed in and activated by the test before, on Transfers
  await page.getByLabel('Item').waitFor()
  await server.stop()
  serverStopped = true

  // a call a screen shows the failure of
  await page.getByLabel('Item').fill('no such item')
  await page.getByLabel('Item').press('Enter')
  const shown = page.getByRole('alert').filter({ hasText: NETWORK })
  await shown.first().waitFor({ timeout: 30_000 })
  assert.match(await shown.first().innerText(), new RegExp(`^${NETWORK.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}$`))

  // failures nobody handles: a fetch whose promise no one catches, twice
  const toasts = page.getByTestId('error-toasts')
  for (let i = 0; i < 2; i++) {
    await page.evaluate(() => {
      setTimeout(() => void fetch('/api/v1/health').then((r) => r.json()), 0)
    })
  }
  await toasts.getByText('2 times').waitFor({ timeout: 10_000 })
  const toast = toasts.getByRole('alert')
  assert.equal(await toast.count(), 1, 'the same failure counts up on one toast')
  assert.equal(
    await toast
      .first()
      .locator('span')
      .first()
      .innerText()
      .then((s) => s.split('\n')[0]),
    `${NETWORK} (timeout)`,
  )

  const body = await page.locator('body').innerText()
  for (const raw of ['Failed to fetch', 'NetworkError', 'Load failed']) assert.ok(!body.includes(raw), `no "${raw}" on the page`)
  await toast.getByRole('button', { name: 'Dismiss' }).click()
  await toasts.waitFor({ state: 'detached' })
  // nothing but the refused connections the browser notes itself
  assert.deepEqual(
    errors.filter((e) => !/ERR_CONNECTION_REFUSED/.test(e)),
    [],
  )
})
