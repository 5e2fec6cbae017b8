// Planning at desktop and handheld size: late shop orders are flagged and counted, the day
// headers are readable, and arrow-key moves of a bar make one write to Exact Online.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { activate, api, MOBILE_UA, msOf, signIn, simulatorRows, syncSettled, waitFor, watchConsole } from './flows.mjs'
import { launchBrowser, startServer } from './server.mjs'

const DAY = 86_400_000
const ZONE = 'Europe/Amsterdam'

let server
let browser
let page
let errors
let division

const simRows = (path) => simulatorRows(server, division, path)

/** Accepted writes of shop orders at the simulator. */
async function shopOrderWrites() {
  const res = await fetch(`${server.lines.Simulator}/_sim/counters`)
  assert.ok(res.ok)
  const { writes } = await res.json()
  return Object.entries(writes)
    .filter(([k]) => k.endsWith(' manufacturing/ShopOrders'))
    .reduce((n, [, v]) => n + v, 0)
}

const dayOf = (v) => Math.floor(msOf(v) / DAY)
const iso = (day) => new Date(day * DAY).toISOString().slice(0, 10)
/** Today in the browser's zone, as days since 1970 (the screen's own calendar). */
const todayDay = () => Math.floor(Date.parse(new Date().toLocaleDateString('en-CA', { timeZone: ZONE }) + 'T00:00:00Z') / DAY)

async function openOrders() {
  const rows = await simRows('manufacturing/ShopOrders')
  return rows.filter((r) => r.Status < 30 && r.PlannedStartDate && r.PlannedDate).sort((a, b) => a.ShopOrderNumber - b.ShopOrderNumber)
}

/** Searches and waits until the rows show it: one order for a number, the whole list for ''. */
async function search(text) {
  await page.getByLabel('Search', { exact: true }).fill(text)
  const rows = page.locator('[data-testid=planning-rows] [role=row]')
  await waitFor(async () => (text ? (await rows.count()) === 1 : (await rows.count()) > 10), `the rows of search '${text}'`, 10_000)
}

/** Day header cells whose label does not fit (cut off). */
async function cutHeaders(p) {
  return p
    .locator('[data-testid=day-header]')
    .evaluateAll((cells) =>
      cells.filter((c) => c.scrollWidth > c.clientWidth + 1 || c.scrollHeight > c.clientHeight + 1 || !c.innerText.trim()).map((c) => c.title),
    )
}

before(async () => {
  server = await startServer('demo')
  browser = await launchBrowser()
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'en-GB', timezoneId: ZONE })
  page = await context.newPage()
  errors = watchConsole(page)
  await signIn(page, server.url)
  await activate(page, server.url, server.lines['Licence code'])
  division = new URL(page.url()).searchParams.get('division')
  await api(page, '/sync', {
    method: 'POST',
    body: { endpoints: ['shopOrders', 'shopOrderMaterialPlans', 'shopOrderRoutingStepPlans', 'stockPositions', 'projects', 'items'] },
  })
  await syncSettled(page, 300_000)
  await page.getByRole('link', { name: 'Planning' }).click()
  await page.waitForURL(/\/planning\?division=/)
})

after(async () => {
  await browser?.close()
  await server?.stop()
})

test('late shop orders are flagged on their bar and row, counted, and in the legend', async () => {
  const today = todayDay()
  const open = await openOrders()
  const late = open.filter((o) => Math.max(dayOf(o.PlannedDate), dayOf(o.PlannedStartDate)) < today)
  assert.ok(late.length > 0 && late.length < open.length, `late in the demo: ${late.length} of ${open.length}`)
  await page.getByTestId('planning-late').getByText(`${late.length} late`, { exact: true }).waitFor()
  await page.getByText('Late: planned date passed, not finished').waitFor()

  const one = late[0]
  await search(String(one.ShopOrderNumber))
  const bar = page.getByTestId(`bar-${one.ShopOrderNumber}`)
  await bar.waitFor()
  assert.equal(await bar.getAttribute('data-late'), 'true')
  await bar.getByText('Late', { exact: true }).waitFor()
  assert.equal(await page.getByTestId('row-late').count(), 1)

  const onTime = open.find((o) => dayOf(o.PlannedDate) >= today)
  await search(String(onTime.ShopOrderNumber))
  const other = page.getByTestId(`bar-${onTime.ShopOrderNumber}`)
  await other.waitFor()
  assert.equal(await other.getAttribute('data-late'), null)
  assert.equal(await page.getByTestId('row-late').count(), 0)
  await search('')
  assert.deepEqual(errors, [])
})

test('day headers are readable at desktop size, also at the smallest scale', async () => {
  await page.locator('[data-testid=day-header]').first().waitFor()
  assert.deepEqual(await cutHeaders(page), [])
  const settings = page.getByRole('button', { name: 'Planning settings' })
  await settings.click()
  await page.getByLabel('Scale').selectOption('0.5')
  await page.keyboard.press('Escape')
  assert.deepEqual(await cutHeaders(page), [])
  await settings.click()
  await page.getByLabel('Scale').selectOption('1')
  await page.keyboard.press('Escape')
})

test('day headers are readable on a handheld', async () => {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, userAgent: MOBILE_UA, locale: 'nl-NL', timezoneId: ZONE })
  // the desktop page's session cookie, so the handheld is the same signed-in user
  await context.addCookies(await page.context().cookies())
  const phone = await context.newPage()
  await phone.goto(`${server.url}/planning?division=${division}`)
  await phone.locator('[data-testid=day-header]').first().waitFor()
  assert.deepEqual(await cutHeaders(phone), [])
  await context.close()
})

test('three arrow presses move the bar at once and make one write of the summed move', async () => {
  const today = todayDay()
  const target = (await openOrders()).find((o) => !o.IsOnHold && dayOf(o.PlannedDate) >= today)
  const start = dayOf(target.PlannedStartDate)
  const end = dayOf(target.PlannedDate)
  await search(String(target.ShopOrderNumber))
  const bar = page.getByTestId(`bar-${target.ShopOrderNumber}`)
  await bar.waitFor()
  const before = await shopOrderWrites()

  await bar.focus()
  for (let i = 0; i < 3; i++) await bar.press('ArrowRight')
  // the bar moved at once, before anything is written
  assert.equal(await bar.getAttribute('data-start'), iso(start + 3))
  assert.equal(await bar.getAttribute('data-end'), iso(end + 3))
  assert.equal(await shopOrderWrites(), before)

  await page.getByTestId('planning-writes').getByText('Saved in Exact Online').waitFor({ timeout: 90_000 })
  const row = await waitFor(async () => {
    const r = (await simRows('manufacturing/ShopOrders')).find((x) => x.ID === target.ID)
    return dayOf(r.PlannedStartDate) === start + 3 ? r : null
  }, 'the moved shop order at the simulator')
  assert.equal(dayOf(row.PlannedDate), end + 3)
  // one write, and no further one trickling in
  await new Promise((r) => setTimeout(r, 2_000))
  assert.equal(await shopOrderWrites(), before + 1)
  assert.equal(await page.getByTestId('planning-writes').getByText('Saved in Exact Online').count(), 1)
  assert.deepEqual(errors, [])
})

test('a moved order keeps its row while its write settles', async () => {
  await search('')
  const order = () => page.locator('[data-testid=planning-rows] [data-testid^=bar-]').evaluateAll((els) => els.map((e) => e.dataset.testid))
  const rows = await order()
  const onHold = new Set((await openOrders()).filter((o) => o.IsOnHold).map((o) => `bar-${o.ShopOrderNumber}`))
  // an early row moved three weeks later would sort far down
  const moved = rows.slice(0, 5).find((id) => !onHold.has(id))
  const bar = page.getByTestId(moved)
  const start = await bar.getAttribute('data-start')
  const saved = () => page.getByTestId('planning-writes').getByText('Saved in Exact Online').count()
  const savedBefore = await saved()
  await bar.focus()
  for (let i = 0; i < 21; i++) await bar.press('ArrowRight')
  await bar.blur()
  await waitFor(async () => (await bar.getAttribute('data-start')) !== start, 'the bar to move', 10_000)
  assert.deepEqual((await order()).slice(0, 10), rows.slice(0, 10))
  await waitFor(async () => (await saved()) === savedBefore + 1, 'the move saved in Exact Online', 180_000)
  assert.deepEqual((await order()).slice(0, 10), rows.slice(0, 10))
  assert.deepEqual(errors, [])
})
