// Labels as Global Settings set them up, against the demo with two real IPP printers
// (ippeveprinter): the shop order's labels from Planning's shop order window and from a scanned
// shop order, and the scanned item's label, each with the label type chosen per source, the
// default printer preselected when it holds that type, and the copies; the PDF answer and the
// printed job are both checked. Hiding weekends in Global Settings shows in Planning.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { activate, api, signIn, simulatorRows, syncSettled, waitFor, watchConsole } from './flows.mjs'
import { printersAvailable, startPrinter } from './printer.mjs'
import { launchBrowser, startServer } from './server.mjs'

/** Labels read Exact Online live, which may first wait for the minute's call budget. */
const LIVE = 120_000
const COPIES = 2

let server
let browser
let page
let errors
let division
let configDir
let desk
let floor
let order

const simRows = (path) => simulatorRows(server, division, path)

const labelsPost = (path) => (r) => new URL(r.url()).pathname === `/api/v1${path}` && r.request().method() === 'POST'

/** Opens the section's PDF: the request it sent, the labels the answer holds, and the tab showing it. */
async function openPdf(section) {
  const popup = page.waitForEvent('popup', { timeout: LIVE })
  const answer = page.waitForResponse(labelsPost('/labels'), { timeout: LIVE })
  await section.getByRole('button', { name: 'Open as PDF' }).click()
  const res = await answer
  assert.equal(res.status(), 200, await res.text())
  assert.equal(res.headers()['content-type'], 'application/pdf')
  const tab = await popup
  await tab.waitForURL(/^blob:/, { timeout: 30_000 })
  const head = await tab.evaluate(async () => (await (await fetch(location.href)).text()).slice(0, 4))
  assert.equal(head, '%PDF')
  await tab.close()
  const result = JSON.parse(res.headers()['x-label-result'])
  return { sent: JSON.parse(res.request().postData()), filename: res.headers()['content-disposition'], labels: result.labels }
}

/** Prints from the section: the request sent, and the job once the printer has it all. */
async function print(section, button) {
  const answer = page.waitForResponse(labelsPost('/labels/print'), { timeout: LIVE })
  await section.getByRole('button', { name: button }).click()
  const res = await answer
  assert.equal(res.status(), 202, await res.text())
  const { job } = await res.json()
  await section.getByTestId('label-print-job').waitFor()
  const done = await waitFor(async () => {
    const now = await api(page, `/printers/jobs/${job.id}`)
    return now.state === 'completed' || now.state === 'failed' ? now : null
  }, `print job ${job.id} to finish`)
  assert.equal(done.state, 'completed', done.message ?? '')
  return { sent: JSON.parse(res.request().postData()), job: done }
}

before(async () => {
  assert.ok(await printersAvailable(), 'ippeveprinter, dbus-daemon and avahi-daemon are installed (scripts/setup)')
  ;[desk, floor] = await Promise.all([startPrinter('esm-e2e-desk'), startPrinter('esm-e2e-floor')])
  configDir = mkdtempSync(join(tmpdir(), 'esm-e2e-labels-'))
  // Desk prints any label type; Floor holds CNC labels only
  writeFileSync(
    join(configDir, 'config.toml'),
    `[[printers]]\nname = "Desk"\nuri = "${desk.uri}"\n\n[[printers]]\nname = "Floor"\nuri = "${floor.uri}"\nlabel_types = ["cnc-new"]\n`,
  )
  server = await startServer('demo', [], { beforeArgs: ['--config', join(configDir, 'config.toml')] })
  browser = await launchBrowser()
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'en-GB', timezoneId: 'Europe/Amsterdam' })
  page = await context.newPage()
  errors = watchConsole(page)
})

after(async () => {
  await browser?.close()
  await server?.stop()
  await Promise.all([desk?.stop(), floor?.stop()])
  if (configDir) rmSync(configDir, { recursive: true, force: true })
})

test('sign in, activate and sync what Planning and Scanning read', async () => {
  await signIn(page, server.url)
  await activate(page, server.url, server.lines['Licence code'])
  division = new URL(page.url()).searchParams.get('division')
  await waitFor(async () => server.lines.Simulator, 'the Simulator line')
  await api(page, '/sync', {
    method: 'POST',
    body: { endpoints: ['shopOrders', 'shopOrderMaterialPlans', 'items', 'stockPositions', 'storageLocationStockPositions', 'projects'] },
  })
  await syncSettled(page, 300_000)
  // an open, dated shop order of a labelled item (no 'ZV' in its code), a few labels long
  order = (await simRows('manufacturing/ShopOrders'))
    .filter((o) => (o.Status === 10 || o.Status === 20) && o.PlannedStartDate && o.PlannedDate)
    .filter((o) => o.ItemCode && !o.ItemCode.includes('ZV') && o.PlannedQuantity >= 1 && o.PlannedQuantity <= 40)
    .sort((a, b) => a.ShopOrderNumber - b.ShopOrderNumber)[0]
  assert.ok(order, 'the demo has an open shop order to label')
})

test('Global Settings: label types per source, the default printer, copies and hidden weekends', async () => {
  await page.goto(`${server.url}/globalSettings?division=${division}`)
  // the printers list asks each printer for its state first
  await page.waitForFunction(() => [...document.querySelectorAll('option')].some((o) => o.value === 'Floor'), null, { timeout: 30_000 })
  await page.getByLabel('Default printer').selectOption('Floor')
  await page.getByLabel('Label type for shop orders').selectOption('cnc-new')
  await page.getByLabel('Label type for single items').selectOption('electrical-x4')
  await page.getByLabel('Copies per label').fill(String(COPIES))
  await page.getByLabel('Hide weekends in the planning').check()
  await page.getByRole('button', { name: 'Save' }).click()
  await page.getByText('Saved.').waitFor()
  const { preferences } = await api(page, '/organizationDetails')
  assert.equal(preferences.default_printer, 'Floor')
  assert.equal(preferences.label_copies, COPIES)
})

test('Planning shows the weekends hidden as Global Settings saved it', async () => {
  await page.getByRole('link', { name: 'Planning' }).click()
  await page.waitForURL(/\/planning\?division=/)
  await page.getByRole('button', { name: 'Planning settings' }).click()
  assert.equal(await page.getByLabel('Show weekends').isChecked(), false)
  await page.keyboard.press('Escape')
})

test("Planning's shop order window prints the order's labels as Global Settings say", async () => {
  await page.getByLabel('Search', { exact: true }).fill(String(order.ShopOrderNumber))
  await page.getByTestId(`bar-${order.ShopOrderNumber}`).click()
  const modal = page.getByTestId('shop-order-modal')
  const section = modal.getByRole('region', { name: `Labels of shop order ${order.ShopOrderNumber}` })
  await section.waitFor()
  assert.equal(await section.getByLabel('Label type').inputValue(), 'cnc-new')
  // the default printer holds CNC labels, so it is the one chosen
  await waitFor(async () => (await section.getByLabel('Printer').count()) > 0, 'the printers')
  assert.equal(await section.getByLabel('Printer').inputValue(), 'Floor')

  const pdf = await openPdf(section)
  assert.deepEqual(pdf.sent, { source: 'shop_order', ids: [order.ID], type: 'cnc-new', copies: COPIES })
  assert.match(pdf.filename, /labels-cnc-new\.pdf/)
  assert.ok(pdf.labels >= COPIES && pdf.labels % COPIES === 0, 'the PDF holds every label twice')

  const before = floor.documents().length
  const printed = await print(section, `Print (${COPIES}×)`)
  assert.deepEqual(printed.sent, { source: 'shop_order', ids: [order.ID], type: 'cnc-new', printer: 'Floor', copies: COPIES })
  assert.equal(printed.job.printer, 'Floor')
  assert.equal(printed.job.label_type, 'cnc-new')
  assert.equal(printed.job.labels, pdf.labels, 'the printer gets the labels of the PDF, copies included')
  assert.equal(floor.documents().length, before + 1, 'Floor received the job')
  assert.equal(desk.documents().length, 0)
  await modal.getByRole('button', { name: 'Close' }).click()
})

test("a scanned shop order prints its labels on the handheld, and the item's label takes its own type", async () => {
  await page.goto(`${server.url}/scanning?division=${division}`)
  await page.locator('#scan-input').focus()
  await page.keyboard.type(String(order.ShopOrderNumber))
  await page.keyboard.press('Enter')
  const section = page.getByRole('region', { name: `Labels of shop order ${order.ShopOrderNumber}` })
  await section.waitFor({ timeout: 30_000 })
  assert.equal(await section.getByLabel('Label type').inputValue(), 'cnc-new')
  await waitFor(async () => (await section.getByLabel('Printer').count()) > 0, 'the printers')
  assert.equal(await section.getByLabel('Printer').inputValue(), 'Floor')
  const before = floor.documents().length
  const printed = await print(section, `Print (${COPIES}×)`)
  assert.deepEqual(printed.sent, { source: 'shop_order', ids: [order.ID], type: 'cnc-new', printer: 'Floor', copies: COPIES })
  assert.equal(floor.documents().length, before + 1)

  // the item made: its own label type; Floor holds no such labels, so no printer is preselected
  await page.getByRole('button', { name: 'Label', exact: true }).click()
  const itemSection = page.getByRole('region', { name: 'Label', exact: true })
  await itemSection.waitFor()
  assert.equal(await itemSection.getByLabel('Label type').inputValue(), 'electrical-x4')
  await waitFor(async () => (await itemSection.getByLabel('Printer').count()) > 0, 'the printers')
  const printer = itemSection.getByLabel('Printer')
  assert.deepEqual(await printer.locator('option').evaluateAll((os) => os.map((o) => o.value)), ['', 'Desk'])
  assert.equal(await printer.inputValue(), '')
  const pdf = await openPdf(itemSection)
  assert.deepEqual(pdf.sent, { source: 'item_direct', ids: [{ id: order.Item, print_count: COPIES }], type: 'electrical-x4' })
  assert.match(pdf.filename, /labels-electrical-x4\.pdf/)
  assert.equal(pdf.labels, COPIES)
})

test('no console errors on the way', () => {
  assert.deepEqual(errors, [])
})
