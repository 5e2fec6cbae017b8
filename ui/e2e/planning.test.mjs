// The Planning screen against the demo: search and the four filters, dragging a bar (the simulator's shop
// order gets the new dates), "on hold" from the shop order window, the weekends toggle kept in
// the organization's preferences, the narrow layout, and at 1440×900 in English and Dutch: Undo
// of a move, a chart that stays put while banners come and go, the window's tooltip clear of
// the status, and dates in the user's language.
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
  await page
    .getByTestId('planning-count')
    .getByText(new RegExp(`^${n.toLocaleString('en-GB')} shop orders?( of|$)`))
    .waitFor()
}

async function search(text) {
  await page.getByLabel('Search', { exact: true }).fill(text)
  await page
    .waitForFunction((n) => document.querySelectorAll('[data-testid=planning-rows] [role=row]').length === n, text ? 1 : undefined, { timeout: 10_000 })
    .catch(() => {})
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

/** The chart's top on the screen. */
const chartTop = (p = page) => p.getByTestId('planning-timeline').evaluate((e) => e.getBoundingClientRect().top)

/** A day (`YYYY-MM-DD`) as the toast writes it: "Thu 3 Dec", "do 3 dec". */
const shortDay = (loc, day) =>
  new Intl.DateTimeFormat(loc, { weekday: 'short', day: 'numeric', month: 'short', timeZone: 'UTC' }).format(Date.parse(`${day}T00:00:00Z`))
/** A day as the bar's description and the list of writes write it: "Thu, 3 Dec 2026", "do 3 dec 2026". */
const longDay = (loc, day) =>
  new Intl.DateTimeFormat(loc, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' }).format(Date.parse(`${day}T00:00:00Z`))

/** The simulator's dates of a shop order, as days. */
async function simDates(id) {
  const r = (await simRows('manufacturing/ShopOrders')).find((x) => x.ID === id)
  return { start: iso(msOf(r.PlannedStartDate)), end: iso(msOf(r.PlannedDate)) }
}

/** Accepted writes of shop orders at the simulator. */
async function shopOrderWrites() {
  const res = await fetch(`${server.lines.Simulator}/_sim/counters`)
  assert.ok(res.ok)
  const { writes } = await res.json()
  return Object.entries(writes)
    .filter(([k]) => k.endsWith(' manufacturing/ShopOrders'))
    .reduce((n, [, v]) => n + v, 0)
}

const serving = (on) =>
  fetch(`${server.lines.Simulator}/_sim/serving`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ on }) })

const overlap = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height

/**
 * Opens a shop order's window and shows its tooltip: it covers neither the status row, the item
 * under the title, nor the close button. Leaves the window open.
 */
async function windowTipClear(p, number, { title, help, close }) {
  await p.getByTestId(`bar-${number}`).click()
  const modal = p.getByTestId('shop-order-modal')
  await modal.getByRole('heading', { name: new RegExp(`^${title} ${number}\\b`) }).waitFor()
  await modal.getByRole('button', { name: help }).hover()
  const tip = modal.locator('h2 [role=tooltip]')
  await tip.waitFor()
  await p.waitForTimeout(300)
  const box = await tip.boundingBox()
  const dialog = await modal.boundingBox()
  assert.ok(box.y >= dialog.y && box.x + box.width <= dialog.x + dialog.width, 'the tooltip is inside the window')
  for (const [what, el] of [
    ['status', modal.locator('dl > div').first()],
    ['item', modal.locator('h2 + p')],
    // the window's own, before the dismiss buttons of its writes
    ['close button', modal.getByRole('button', { name: close }).first()],
  ])
    assert.ok(!overlap(box, await el.boundingBox()), `the tooltip covers the ${what}`)
  await p.mouse.move(5, 5)
  return modal
}

/** Open, dated shop orders not on hold, earliest number first. */
async function openOrders() {
  const rows = await simRows('manufacturing/ShopOrders')
  return rows.filter((r) => r.Status < 30 && r.PlannedStartDate && r.PlannedDate).sort((a, b) => a.ShopOrderNumber - b.ShopOrderNumber)
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
  for (const n of shown)
    assert.ok(
      withProject.some((o) => o.ShopOrderNumber === n),
      `${n} is not of the project`,
    )
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
  // the chart reads only its bars' fields: the window reads the order in full
  const quantity = modal.locator('dl > div', { hasText: 'Produced / planned' }).locator('dd')
  const en = (n) => Number(n ?? 0).toLocaleString('en-GB', { maximumFractionDigits: 3 })
  assert.equal((await quantity.innerText()).trim(), `${en(target.ProducedQuantity)} / ${en(target.PlannedQuantity)} ${target.Unit ?? ''}`.trim())
  assert.equal(await modal.getByLabel('Notes').inputValue(), target.Notes ?? '')
  assert.ok(
    await modal
      .getByRole('link', { name: /Shop order/ })
      .first()
      .getAttribute('href'),
  )
  await modal.getByLabel('On hold').check()
  await modal.locator('li', { hasText: 'On hold: yes' }).getByText('Saved in Exact Online').waitFor({ timeout: 90_000 })
  await waitFor(async () => (await simRows('manufacturing/ShopOrders')).find((x) => x.ID === target.ID).IsOnHold === 1, 'IsOnHold at the simulator')
  // a date before the start is refused before anything is sent
  await modal.getByLabel('Planned date').fill('2000-01-01')
  await modal.getByRole('button', { name: 'Save dates' }).click()
  await modal.getByText('The planned date cannot be before the planned start.').waitFor()
  await modal.getByRole('button', { name: 'Close' }).click()
  await modal.waitFor({ state: 'detached' })
})

test('the shop order window shows the availability of each material line still needed', async () => {
  // the server's answer names a line by its order and line number; the window finds it by those
  // (in columns: `counts` says how many lines each of `orders` has)
  const needs = await api(page, '/planning/materials')
  const open = await openOrders()
  const withLines = needs.orders
    .map((id, i) => ({ order: open.find((x) => x.ID.toLowerCase() === id), lines: needs.counts[i] }))
    .filter((o) => o.order && o.lines > 1)
  assert.ok(withLines.length > 0, 'an open order with material lines still needed')
  const { order, lines } = withLines[0]
  await search(String(order.ShopOrderNumber))
  await page.getByTestId('planning-checking-materials').waitFor({ state: 'detached' })
  await page.getByTestId(`bar-${order.ShopOrderNumber}`).click()
  const modal = page.getByTestId('shop-order-modal')
  await modal.getByTestId('modal-plans').waitFor()
  await waitFor(async () => (await modal.getByTestId('line-availability').count()) === lines, `${lines} lines with their availability`)
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
  await waitFor(
    async () => {
      const r = (await simRows('manufacturing/ShopOrders')).find((x) => x.ID === target.ID)
      return msOf(r.PlannedStartDate) === start
    },
    `a start 4 workdays later (${iso(start)})`,
  )
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

test('a move offers Undo, which writes the dates before it back to Exact Online', async () => {
  const target = (await openOrders()).filter((o) => !o.IsOnHold)[4]
  await search(String(target.ShopOrderNumber))
  const bar = page.getByTestId(`bar-${target.ShopOrderNumber}`)
  await bar.waitFor()
  const was = { start: await bar.getAttribute('data-start'), end: await bar.getAttribute('data-end') }
  const top = await chartTop()
  await dragBar(target.ShopOrderNumber, 2)
  await waitFor(async () => (await bar.getAttribute('data-start')) !== was.start, 'the bar to move', 10_000)
  const moved = { start: await bar.getAttribute('data-start'), end: await bar.getAttribute('data-end') }
  const toast = page.getByTestId('undo-toast')
  await toast.getByText(`Moved SO ${target.ShopOrderNumber} to ${shortDay('en-GB', moved.start)}.`).waitFor()
  // it stays while the pointer is on it
  await toast.hover()
  // the bar's description has the dates in words
  assert.ok((await bar.getAttribute('title')).includes(`${longDay('en-GB', moved.start)} to ${longDay('en-GB', moved.end)}`))
  await waitFor(async () => (await simDates(target.ID)).start === moved.start, 'the move at the simulator', 120_000)
  await toast.getByText('Saved in Exact Online').waitFor()
  const list = page.getByTestId('planning-writes')
  await list
    .getByText(`start ${longDay('en-GB', moved.start)}`)
    .first()
    .waitFor()
  // neither the list of writes nor the toast moved the chart
  assert.equal(await chartTop(), top)

  await toast.getByRole('button', { name: 'Undo' }).click()
  // the bar is back at once; the old dates go to Exact Online like any write
  assert.equal(await bar.getAttribute('data-start'), was.start)
  await toast.getByText(`Moved SO ${target.ShopOrderNumber} back to ${shortDay('en-GB', was.start)}.`).waitFor()
  await waitFor(
    async () => {
      const d = await simDates(target.ID)
      return d.start === was.start && d.end === was.end
    },
    'the dates before the move at the simulator',
    120_000,
  )
  assert.equal(await chartTop(), top)
  // the toast goes by itself after ten seconds
  await page.mouse.move(700, 300)
  await toast.waitFor({ state: 'detached', timeout: 20_000 })

  const modal = await windowTipClear(page, target.ShopOrderNumber, { title: 'Shop order', help: 'About this window', close: 'Close' })
  await modal.getByRole('button', { name: 'Close' }).click()
  await modal.waitFor({ state: 'detached' })
  assert.deepEqual(errors, [])
})

test('the chart stays put while the outage banner comes and goes, and a queued move is undone in order', async () => {
  const target = (await openOrders()).filter((o) => !o.IsOnHold)[5]
  await search(String(target.ShopOrderNumber))
  const bar = page.getByTestId(`bar-${target.ShopOrderNumber}`)
  await bar.waitFor()
  const was = { start: await bar.getAttribute('data-start'), end: await bar.getAttribute('data-end') }
  const top = await chartTop()
  const writesBefore = await shopOrderWrites()

  await serving(false)
  try {
    await dragBar(target.ShopOrderNumber, 3)
    const toast = page.getByTestId('undo-toast')
    await toast.hover()
    await toast.getByText('Queued: sent when Exact Online answers').waitFor({ timeout: 90_000 })
    const banner = page.getByTestId('outage')
    await banner.waitFor({ timeout: 60_000 })
    // the banner shows beside the title, not above the page
    assert.equal(await page.getByTestId('planning-notices').getByTestId('outage').count(), 1)
    assert.equal(await chartTop(), top, 'the banner moved the chart')
    await toast.getByRole('button', { name: 'Undo' }).click()
    assert.equal(await bar.getAttribute('data-start'), was.start)
  } finally {
    await serving(true)
  }
  await page.getByTestId('outage').waitFor({ state: 'detached', timeout: 120_000 })
  assert.equal(await chartTop(), top, 'the banner going moved the chart')
  // the move and the move back both reach Exact Online, in that order
  await waitFor(async () => (await shopOrderWrites()) >= writesBefore + 2, 'both writes at the simulator', 180_000)
  const d = await simDates(target.ID)
  assert.deepEqual(d, was)
  assert.equal(await bar.getAttribute('data-start'), was.start)
  assert.deepEqual(errors, [])
})

test('in Dutch the move, its Undo and the shop order window use Dutch dates', async () => {
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'nl-NL', timezoneId: 'Europe/Amsterdam' })
  await context.addCookies(await page.context().cookies())
  const nl = await context.newPage()
  const nlErrors = watchConsole(nl)
  await nl.goto(`${server.url}/planning?division=${division}`)
  const target = (await openOrders()).filter((o) => !o.IsOnHold)[6]
  await nl.getByLabel('Zoeken', { exact: true }).fill(String(target.ShopOrderNumber))
  const bar = nl.getByTestId(`bar-${target.ShopOrderNumber}`)
  await bar.waitFor()
  await waitFor(async () => (await nl.locator('[data-testid=planning-rows] [role=row]').count()) === 1, 'the one row', 10_000)
  const was = { start: await bar.getAttribute('data-start'), end: await bar.getAttribute('data-end') }
  const top = await chartTop(nl)

  // two arrow presses: one move
  await bar.focus()
  await bar.press('ArrowRight')
  await bar.press('ArrowRight')
  const toast = nl.getByTestId('undo-toast')
  await toast.getByTestId('move-text').waitFor()
  await toast.hover()
  const moved = { start: await bar.getAttribute('data-start'), end: await bar.getAttribute('data-end') }
  assert.notEqual(moved.start, was.start)
  assert.equal(await toast.getByTestId('move-text').innerText(), `SO ${target.ShopOrderNumber} verplaatst naar ${shortDay('nl-NL', moved.start)}.`)
  assert.ok((await bar.getAttribute('title')).includes(`${longDay('nl-NL', moved.start)} tot ${longDay('nl-NL', moved.end)}`))
  await waitFor(async () => (await simDates(target.ID)).start === moved.start, 'the move at the simulator', 120_000)
  await toast.getByText('Opgeslagen in Exact Online').waitFor()
  assert.equal(await chartTop(nl), top)

  await toast.getByRole('button', { name: 'Ongedaan maken' }).click()
  assert.equal(await bar.getAttribute('data-start'), was.start)
  await toast.getByText(`SO ${target.ShopOrderNumber} teruggezet naar ${shortDay('nl-NL', was.start)}.`).waitFor()
  await waitFor(
    async () => {
      const d = await simDates(target.ID)
      return d.start === was.start && d.end === was.end
    },
    'the dates before the move at the simulator',
    120_000,
  )

  // the window: its tooltip clear of the status, the writes in Dutch dates
  const modal = await windowTipClear(nl, target.ShopOrderNumber, { title: 'Productieorder', help: 'Over dit venster', close: 'Sluiten' })
  await modal
    .getByTestId('planning-writes')
    .getByText(`start ${longDay('nl-NL', moved.start)}, gepland ${longDay('nl-NL', moved.end)}`)
    .waitFor()
  await modal
    .getByTestId('planning-writes')
    .getByText(`start ${longDay('nl-NL', was.start)}, gepland ${longDay('nl-NL', was.end)}`)
    .waitFor()
  await context.close()
  assert.deepEqual(nlErrors, [])
})
