// The Planning screen against the demo: search and the four filters, dragging a bar (the simulator's shop
// order gets the new dates), "on hold" from the shop order window, the weekends toggle kept in
// the organization's preferences, and the narrow layout.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { activate, api, iso, MOBILE_UA, msOf, signIn, simulatorRows, syncSettled, waitFor, watchConsole } from './flows.mjs'
import { launchBrowser, startServer } from './server.mjs'

const DAY = 86_400_000

let server
let browser
let page
let errors
let division

/** The simulator's current rows of a provider path (loopback control endpoint). */
const simRows = (path) => simulatorRows(server, division, path)


/** `ms` moved by `n` days, only Monday to Friday counted when `workdays`. */
function shift(ms, n, workdays) {
  let d = ms
  let left = Math.abs(n)
  while (left > 0) {
    d += Math.sign(n) * DAY
    const w = new Date(d).getUTCDay()
    if (!workdays || (w !== 0 && w !== 6)) left--
  }
  return d
}

/** Waits until the planning says it shows exactly `n` shop orders. */
async function countIs(n) {
  await page.getByTestId('planning-count').getByText(new RegExp(`^${n.toLocaleString('en-GB')} shop orders?( of|$)`)).waitFor()
}

async function search(text) {
  await page.getByLabel('Search', { exact: true }).fill(text)
  await page.waitForFunction(
    (n) => document.querySelectorAll('[data-testid=planning-rows] [role=row]').length === n,
    text ? 1 : undefined,
    { timeout: 10_000 },
  ).catch(() => {})
}

/** Drags the middle of a shop order's bar by `columns` day columns. */
async function dragBar(number, columns, pxPerDay = 40) {
  const bar = page.getByTestId(`bar-${number}`)
  // hover waits until nothing (a sync toast) covers the bar, as a user would
  await bar.hover()
  const box = await bar.boundingBox()
  const y = box.y + box.height / 2
  const x = box.x + box.width / 2
  await page.mouse.move(x, y)
  await page.mouse.down()
  for (let i = 1; i <= 5; i++) await page.mouse.move(x + (columns * pxPerDay * i) / 5, y)
  await page.mouse.up()
}

/** Open, dated shop orders not on hold, earliest number first. */
async function openOrders() {
  const rows = await simRows('manufacturing/ShopOrders')
  return rows
    .filter((r) => r.Status < 30 && r.PlannedStartDate && r.PlannedDate)
    .sort((a, b) => a.ShopOrderNumber - b.ShopOrderNumber)
}

before(async () => {
  server = await startServer('demo')
  browser = await launchBrowser()
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'en-GB', timezoneId: 'Europe/Amsterdam' })
  page = await context.newPage()
  errors = watchConsole(page)
})

after(async () => {
  await browser?.close()
  await server?.stop()
})

test('sign in, sync, and Planning shows the open shop orders', async () => {
  await signIn(page, server.url)
  await activate(page, server.url, server.lines['Licence code'])
  division = new URL(page.url()).searchParams.get('division')
  // the tables the planning reads (the whole sync is the Dashboard's spec)
  await api(page, '/sync', {
    method: 'POST',
    body: { endpoints: ['shopOrders', 'shopOrderMaterialPlans', 'shopOrderRoutingStepPlans', 'stockPositions', 'projects', 'items'] },
  })
  await syncSettled(page, 300_000)

  await page.getByRole('link', { name: 'Planning' }).click()
  await page.waitForURL(/\/planning\?division=/)
  const open = await openOrders()
  await countIs(open.length)
  // only the rows in view are in the page
  const inPage = await page.locator('[data-testid=planning-rows] [role=row]').count()
  assert.ok(inPage > 0 && inPage < Math.min(open.length, 60), `rows in the page: ${inPage}`)
})

test('search by number and Your Ref, and filter by project', async () => {
  const open = await openOrders()
  const target = open.find((o) => o.Project) ?? open[0]
  await search(String(target.ShopOrderNumber))
  await page.getByTestId(`bar-${target.ShopOrderNumber}`).waitFor()
  await countIs(1)
  await search(target.YourRef)
  await page.getByTestId(`bar-${target.ShopOrderNumber}`).waitFor()
  await search('no such order zz')
  await page.getByText('No shop order matches the search and filters.').waitFor()
  await search('')

  const withProject = open.filter((o) => o.Project === target.Project)
  await page.getByRole('combobox', { name: 'Project' }).selectOption(target.Project)
  await countIs(withProject.length)
  const shown = await page.locator('[data-testid^=bar-]').evaluateAll((els) => els.map((e) => Number(e.dataset.testid.slice(4))))
  assert.ok(shown.length > 0)
  for (const n of shown) assert.ok(withProject.some((o) => o.ShopOrderNumber === n), `${n} is not of the project`)
  await page.getByRole('combobox', { name: 'Project' }).selectOption('')

  // the selection code, and the item group of the item made
  const coded = open.find((o) => o.SelectionCode)
  const sameCode = open.filter((o) => o.SelectionCode === coded.SelectionCode)
  await page.getByLabel('Selection code').selectOption(coded.SelectionCode)
  await countIs(sameCode.length)
  await page.getByLabel('Selection code').selectOption('')

  const items = await simRows('logistics/Items')
  const groupOf = new Map(items.map((i) => [i.ID, i.ItemGroup]))
  const group = groupOf.get(target.Item)
  const inGroup = open.filter((o) => groupOf.get(o.Item) === group)
  await page.getByLabel('Item group').selectOption(group)
  await countIs(inGroup.length)
  await page.getByLabel('Item group').selectOption('')
  await countIs(open.length)
})

test('dragging a bar moves the shop order in Exact Online', async () => {
  const [target] = (await openOrders()).filter((o) => !o.IsOnHold)
  await search(String(target.ShopOrderNumber))
  await dragBar(target.ShopOrderNumber, 3)
  const start = shift(msOf(target.PlannedStartDate), 3, false)
  const end = shift(msOf(target.PlannedDate), 3, false)
  const bar = page.getByTestId(`bar-${target.ShopOrderNumber}`)
  assert.equal(await bar.getAttribute('data-start'), iso(start))
  await page
    .getByTestId('planning-writes')
    .getByText('Saved in Exact Online')
    .waitFor({ timeout: 90_000 })
    .catch(async (e) => {
      throw new Error(`${e.message}\nwrites: ${await page.getByTestId('planning-writes').innerText()}`)
    })
  const row = await waitFor(async () => {
    const r = (await simRows('manufacturing/ShopOrders')).find((x) => x.ID === target.ID)
    return msOf(r.PlannedStartDate) === start ? r : null
  }, 'the new planned start at the simulator')
  assert.equal(iso(msOf(row.PlannedDate)), iso(end))

  // resizing the end edge changes only the planned date (the bar is measured again: the saved
  // write may have re-rendered it)
  const edge = bar.locator('[data-edge=end]')
  await edge.hover({ position: { x: 3, y: 5 } })
  const box = await bar.boundingBox()
  await page.mouse.down()
  await page.mouse.move(box.x + box.width + 40, box.y + 5, { steps: 4 })
  await page.mouse.up()
  await waitFor(async () => (await bar.getAttribute('data-end')) === iso(shift(end, 1, false)), 'the bar to grow a day', 10_000)
  assert.equal(await bar.getAttribute('data-start'), iso(start))
  // The second write may wait for the provider's next minute (the first one's sync used it).
  await waitFor(
    async () => {
      const r = (await simRows('manufacturing/ShopOrders')).find((x) => x.ID === target.ID)
      return msOf(r.PlannedDate) === shift(end, 1, false) && msOf(r.PlannedStartDate) === start
    },
    'the longer shop order at the simulator',
    180_000,
  )
})

test('the shop order window puts an order on hold in Exact Online', async () => {
  const target = (await openOrders()).filter((o) => !o.IsOnHold)[2]
  await search(String(target.ShopOrderNumber))
  await page.getByTestId(`bar-${target.ShopOrderNumber}`).click()
  const modal = page.getByTestId('shop-order-modal')
  await modal.getByRole('heading', { name: new RegExp(`^Shop order ${target.ShopOrderNumber}\\b`) }).waitFor()
  await modal.getByTestId('modal-plans').waitFor()
  assert.ok(await modal.getByRole('link', { name: /Shop order/ }).first().getAttribute('href'))
  await modal.getByLabel('On hold').check()
  await modal.locator('li', { hasText: 'On hold: yes' }).getByText('Saved in Exact Online').waitFor({ timeout: 90_000 })
  await waitFor(
    async () => (await simRows('manufacturing/ShopOrders')).find((x) => x.ID === target.ID).IsOnHold === 1,
    'IsOnHold at the simulator',
  )
  // a date before the start is refused before anything is sent
  await modal.getByLabel('Planned date').fill('2000-01-01')
  await modal.getByRole('button', { name: 'Save dates' }).click()
  await modal.getByText('The planned date cannot be before the planned start.').waitFor()
  await modal.getByRole('button', { name: 'Close' }).click()
  await modal.waitFor({ state: 'detached' })
})

test('hiding weekends is kept for the organization and drags count workdays', async () => {
  await page.getByRole('button', { name: 'Planning settings' }).click()
  const box = page.getByLabel('Show weekends')
  assert.equal(await box.isChecked(), true)
  await box.uncheck()
  await waitFor(async () => (await api(page, '/organizationDetails')).preferences?.weekends_disabled === true, 'the saved preference')
  await page.reload()
  await page.getByRole('button', { name: 'Planning settings' }).click()
  assert.equal(await page.getByLabel('Show weekends').isChecked(), false)
  await page.keyboard.press('Escape')

  const orders = (await openOrders()).filter((o) => !o.IsOnHold)
  const target = orders[1]
  await search(String(target.ShopOrderNumber))
  await dragBar(target.ShopOrderNumber, 4)
  const start = shift(msOf(target.PlannedStartDate), 4, true)
  await waitFor(async () => {
    const r = (await simRows('manufacturing/ShopOrders')).find((x) => x.ID === target.ID)
    return msOf(r.PlannedStartDate) === start
  }, `a start 4 workdays later (${iso(start)})`)
  assert.deepEqual(errors, [])
})

test('on a handheld the planning and the shop order window work', async () => {
  const storageState = await page.context().storageState()
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, userAgent: MOBILE_UA, locale: 'en-GB', storageState })
  const phone = await context.newPage()
  const phoneErrors = watchConsole(phone)
  await phone.goto(page.url())
  const bars = phone.locator('[data-testid^=bar-]')
  await bars.first().waitFor()
  const rowButton = phone.locator('[data-testid=planning-rows] [role=row] [role=rowheader] > button').first()
  const size = await rowButton.boundingBox()
  assert.ok(size.height >= 44, 'touch targets are at least 44 px high')
  await rowButton.click()
  await phone.getByTestId('shop-order-modal').waitFor()
  const width = await phone.getByTestId('shop-order-modal').evaluate((el) => el.getBoundingClientRect().width)
  assert.ok(width <= 390)
  await context.close()
  assert.deepEqual(phoneErrors, [])
})
