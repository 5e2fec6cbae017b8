// Flow and state at desktop size: an organization not activated yet offers its activation and a
// way back to an activated one (the switcher stays, a link's ?division= is followed), and a
// logout leaves nothing of the session on the sign-in page without a reload.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { activate, signIn, watchConsole } from './flows.mjs'
import { launchBrowser, startServer } from './server.mjs'

const FIRST = '3154102'
const SECOND = '3154117'
const FIRST_NAME = 'Van Dijk Machinebouw B.V.'
const SECOND_NAME = 'Van Dijk Service & Onderdelen B.V.'

let server
let browser
let context
let page
let errors

before(async () => {
  server = await startServer('demo', [], { rateLimits: true })
  browser = await launchBrowser()
  context = await browser.newContext({ viewport: { width: 1440, height: 900 } })
  page = await context.newPage()
  errors = watchConsole(page)
  await signIn(page, server.url)
  await activate(page, server.url, server.lines['Licence code'])
})

after(async () => {
  await context?.close()
  await browser?.close()
  await server?.stop()
})

const header = () => page.getByRole('banner')
const switcher = () => header().getByRole('combobox', { name: 'Organization' })
const mainNav = () => page.getByRole('navigation', { name: 'Main' })

async function onDashboardOf(division) {
  await page.waitForURL(`${server.url}/dashboard?division=${division}`)
  await page.getByTestId('dashboard-division').filter({ hasText: division }).waitFor()
  await mainNav().waitFor()
  await page.getByRole('button', { name: 'Sync Data' }).waitFor()
}

test('an organization not activated yet offers its activation and the way back', async () => {
  await onDashboardOf(FIRST)
  await switcher().selectOption(SECOND)

  // the licence page of the chosen organization, under its own name; the switcher stays
  await page.waitForURL((u) => u.pathname === '/license-code' && u.searchParams.get('division') === SECOND)
  await page.getByLabel('Licence code').waitFor()
  assert.equal(await page.getByTestId('licence-division').innerText(), SECOND)
  await header().getByRole('link', { name: SECOND_NAME }).waitFor()
  assert.equal(await header().getByText(FIRST_NAME, { exact: true }).count(), 0)
  assert.equal(await switcher().inputValue(), SECOND)
  assert.equal(await mainNav().count(), 0)

  // a full screen of it shows the way to activation instead of refused calls
  await page.goto(`${server.url}/planning?division=${SECOND}`)
  await page.getByTestId('activation-notice').waitFor()
  await page.getByTestId('activation-notice').getByRole('link', { name: 'Enter a licence code' }).waitFor()
  await switcher().waitFor()

  // a link to the activated organization is followed, not ignored
  await page.goto(`${server.url}/dashboard?division=${FIRST}`)
  await onDashboardOf(FIRST)
  assert.equal(await switcher().inputValue(), FIRST)
  await header().getByRole('link', { name: FIRST_NAME }).waitFor()

  // and the switcher leads back from the licence page to the activated one's Dashboard
  await switcher().selectOption(SECOND)
  await page.waitForURL((u) => u.pathname === '/license-code')
  await switcher().selectOption(FIRST)
  await onDashboardOf(FIRST)
  assert.deepEqual(errors, [])
})

test('after logout the sign-in page shows no navigation, organization names or banners', async () => {
  await onDashboardOf(FIRST)
  await page.getByRole('button', { name: 'Settings' }).click()
  await page.getByRole('menuitem', { name: 'Logout' }).click()
  await page.getByRole('dialog').getByRole('button', { name: 'Yes' }).click()
  await page.waitForURL(server.url + '/')
  await page.getByRole('button', { name: 'Sign in with Exact Online' }).waitFor()
  // no reload in between: what the shell showed must be gone at once
  assert.equal(await header().count(), 0)
  assert.equal(await mainNav().count(), 0)
  assert.equal(await page.getByRole('combobox', { name: 'Organization' }).count(), 0)
  const text = await page.locator('body').innerText()
  assert.ok(!text.includes(FIRST_NAME) && !text.includes(SECOND_NAME), text)
  assert.equal(await page.getByTestId('activation-notice').count(), 0)
  assert.deepEqual(errors, [])
})
