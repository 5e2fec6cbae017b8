// Dates and times at desktop size (1440×900) in a browser whose own locale is US English and
// whose clock is Amsterdam's, where they broke: the Database page showed US dates in Dutch, and
// a transfer showed an hour later in the Transfers history than in the outbox.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { api, same, simulatorRows, syncedDemo } from './flows.mjs'

let server
let browser
let page
let errors
let division

before(async () => {
  ;({ server, browser, page, errors, division } = await syncedDemo({ viewport: { width: 1440, height: 900 }, locale: 'en-US', timezoneId: 'Europe/Amsterdam' }))
})

after(async () => {
  await browser?.close()
  await server?.stop()
})

const rows = (path) => simulatorRows(server, division, path)

/** Today in Amsterdam (the server's default time zone) in Dutch figures: "26-11-2026". */
function dutchToday() {
  const parts = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Amsterdam', day: '2-digit', month: '2-digit', year: 'numeric' }).formatToParts(Date.now())
  const get = (type) => parts.find((p) => p.type === type).value
  return `${get('day')}-${get('month')}-${get('year')}`
}

/** The minutes of the day of the `HH:MM` a date-time text ends with. */
function minutesOf(text) {
  const m = /(\d{2}):(\d{2})$/.exec(text.trim())
  assert.ok(m, `"${text}" ends with a time`)
  return Number(m[1]) * 60 + Number(m[2])
}

test('a transfer shows the same time in the Transfers history and the outbox, in Dutch day-month order', async (t) => {
  const session = await api(page, '/auth/session')
  assert.equal(session.timeZone, 'Europe/Amsterdam')

  // a transfer made in the app
  const positions = await rows('sync/Inventory/StorageLocationStockPositions')
  const locations = await rows('inventory/StorageLocations')
  const items = await rows('logistics/Items')
  // an item tracked by no number: a serial or batch item would ask for its numbers first
  const untracked = (i) => i.IsSerialItem !== true && i.IsBatchItem !== 1 && i.IsBatchItem !== true
  const source = positions.find((p) => p.Stock >= 3 && p.StorageLocation && items.some((i) => same(i.ID, p.Item) && i.Code === p.ItemCode && untracked(i)))
  assert.ok(source, 'the demo has stock at a storage location')
  const target = locations.find((l) => !same(l.ID, source.StorageLocation) && !same(l.Warehouse, source.Warehouse))
  await page.goto(`${server.url}/transfers?division=${division}`)
  await page.getByLabel('Item').fill(source.ItemCode)
  await page.getByLabel('Item').press('Enter')
  await page.getByTestId('transfer-item').waitFor()
  await page.waitForFunction(
    (loc) => [...document.querySelectorAll('select[name=from] option')].some((o) => o.value === loc),
    source.StorageLocation.toLowerCase(),
  )
  await page.getByLabel('From location').selectOption(source.StorageLocation.toLowerCase())
  await page.getByLabel('To location').selectOption(target.ID.toLowerCase())
  await page.getByLabel('Quantity').fill('1')
  await page.getByRole('button', { name: 'Transfer', exact: true }).click()
  await page.waitForFunction(() => ['delivered', 'failed'].includes(document.querySelector('[data-testid=write-status]')?.getAttribute('data-state')), null, {
    timeout: 120_000,
  })
  assert.equal(await page.getByTestId('write-status').first().getAttribute('data-state'), 'delivered')

  // the app in Dutch, in a browser that would write US dates by itself
  await page.goto(`${server.url}/accountSettings?division=${division}`)
  await page.getByLabel('Nederlands').check()
  await page.getByRole('heading', { name: 'Accountinstellingen' }).waitFor()
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'nl')
  const today = dutchToday()

  await page.goto(`${server.url}/transfers?division=${division}`)
  const recent = page.getByTestId('recent-transfer').filter({ hasText: source.ItemCode }).first()
  await recent.waitFor({ timeout: 120_000 })
  const inHistory = await recent.getByTestId('transfer-date').innerText()
  assert.ok(inHistory.startsWith(today), `the history writes "${inHistory}", today is ${today}`)

  await page.goto(`${server.url}/mng?division=${division}`)
  const lastSync = await page.getByTestId('last-sync').innerText()
  assert.match(lastSync, new RegExp(`^Laatst gesynchroniseerd: ${today},? \\d{2}:\\d{2}$`))
  const entry = page.getByTestId('outbox-entry').filter({ hasText: 'createWarehouseTransfer' }).first()
  await entry.waitFor()
  const inOutbox = await entry.getByTestId('outbox-created').innerText()
  assert.ok(inOutbox.startsWith(today), `the outbox writes "${inOutbox}", today is ${today}`)

  // queued and processed within moments: the same minute, or the next one, never an hour apart
  t.diagnostic(`history "${inHistory}", outbox "${inOutbox}", ${lastSync}`)
  const apart = Math.abs(minutesOf(inHistory) - minutesOf(inOutbox))
  assert.ok(apart <= 1 || apart === 24 * 60 - 1, `history ${inHistory}, outbox ${inOutbox}`)
  assert.deepEqual(errors, [])
})

test('in Dutch: the licence names the company and its state, amounts and "2.500" read the Dutch way', async () => {
  // the app is in Dutch since the test above
  const session = await api(page, '/auth/session')
  const company = session.divisions.find((d) => String(d.division) === String(division))?.name
  await page.goto(`${server.url}/license-code?division=${division}`)
  await page.getByTestId('licence-status').waitFor()
  assert.equal(await page.getByTestId('licence-company').innerText(), company)
  assert.match(await page.getByTestId('licence-status').innerText(), /^Actief( tot en met \d{2}-\d{2}-\d{4}|, zonder einddatum)$/)

  // an amount in a sentence carries the Dutch thousands mark; below a thousand none
  await page.goto(`${server.url}/purchaseOverview?division=${division}`)
  const summary = await page.getByTestId('purchases-summary').innerText({ timeout: 60_000 })
  const lines = Number(/^([\d.]+) open regels/.exec(summary)?.[1].replace(/\./g, ''))
  assert.ok(lines > 0, summary)
  assert.ok(summary.startsWith(`${lines.toLocaleString('nl-NL')} open regels`), summary)

  // "2.500" in a quantity typed in Dutch is two thousand five hundred: more than any line has open
  await page.goto(`${server.url}/receipts?division=${division}`)
  await page.getByRole('button', { name: 'Goederen ontvangen' }).click()
  const dialog = page.getByRole('dialog')
  await dialog.getByTestId('open-line').first().waitFor({ timeout: 120_000 })
  const row = dialog.getByTestId('open-line').first()
  await row.getByRole('checkbox').check()
  await row.getByLabel('Ontvangen aantal').fill('2.500')
  await dialog.getByText(/Meerlevering: op deze regel staat nog/).waitFor()
  // every open line has one or more open: "0,5" is half of one, no over-delivery
  await row.getByLabel('Ontvangen aantal').fill('0,5')
  assert.equal(await dialog.getByText(/Meerlevering/).count(), 0, '0,5 is a half')
  await dialog.getByRole('button', { name: /Sluiten/ }).click()
  assert.deepEqual(errors, [])
})
