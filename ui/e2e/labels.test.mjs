// Labels as Global Settings set them up, against the demo with two real IPP printers
// (ippeveprinter): the shop order's labels from Planning's shop order window and from a scanned
// shop order, and the scanned item's label, each with the label type chosen per source, the
// default printer preselected when it holds that type, and the copies; the PDF answer and the
// printed job are both checked. Hiding weekends in Global Settings shows in Planning. Receipts:
// lines picked high up a long list print from the sticky "Print labels (N)" bar, and the screen
// follows the job until the printer has printed it, at 1440 × 900 and on a 390 × 844 handheld.
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

/** Where `locator` is against the viewport: its box, and whether all of it is on screen. */
async function onScreen(locator) {
  const box = await locator.boundingBox()
  const { height, width } = page.viewportSize()
  return { box, shown: box !== null && box.y >= 0 && box.y + box.height <= height + 0.5 && box.x >= 0 && box.x + box.width <= width + 0.5 }
}

/** Lines a receipt label is made for: not a 'ZV' item (the labels leave those out). */
const labelledLines = () => page.getByRole('checkbox', { name: /^Pick (?!.*ZV).* for labels$/ })

test('Receipts: lines picked on a long list print from the "Print labels" bar, followed until printed', async () => {
  await page.goto(`${server.url}/receipts?division=${division}`)
  await page.getByTestId('receipt-count').waitFor({ timeout: LIVE })
  const viewport = page.viewportSize()
  assert.deepEqual(viewport, { width: 1440, height: 900 })
  const listHeight = await page.evaluate(() => document.documentElement.scrollHeight)
  assert.ok(listHeight > 3 * viewport.height, `a long list of receipts (${listHeight} px)`)

  const bar = page.getByTestId('print-bar')
  assert.equal(await bar.count(), 0, 'no bar before a line is picked')
  await labelledLines().nth(0).check()
  await labelledLines().nth(1).check()
  const open = bar.getByRole('button', { name: 'Print labels (2)' })
  await open.waitFor()
  const panel = page.getByTestId('print-panel')
  assert.ok((await onScreen(open)).shown, 'the bar is on screen')
  assert.ok((await panel.boundingBox()).y > viewport.height, 'the panel is below the screen, under the long list')
  // the bar stays at the bottom of the screen while the list scrolls by
  await page.mouse.wheel(0, 1500)
  await page.waitForFunction(() => window.scrollY >= 1000)
  const { box, shown } = await onScreen(open)
  assert.ok(shown, 'the bar is on screen after scrolling')
  assert.ok(box.y + box.height > viewport.height - 80, `the bar sits at the bottom of the screen (${box.y})`)

  await open.click()
  const title = panel.getByRole('heading', { name: 'Labels for 2 line(s)' })
  assert.ok((await onScreen(title)).shown, 'the panel is on screen')
  assert.equal(await title.evaluate((h) => h === document.activeElement), true, 'the focus is on the panel')

  const type = panel.getByLabel('Label type')
  assert.equal(await type.inputValue(), 'receipts')
  assert.equal(await type.evaluate((s) => s.selectedOptions[0].textContent), 'Goods receipt (76.2 × 44.45 mm)')
  assert.ok(!(await type.locator('option').allTextContents()).some((o) => /^\d+$/.test(o.trim())), 'no label type shown as a number')
  // Floor, the default printer, holds CNC labels only: the receipt labels go to Desk
  await panel.getByLabel('Printer').selectOption('Desk')

  // every state the job is shown in, and whether "SUCCESS" ever shows
  await page.evaluate(() => {
    const seen = { states: [], texts: [], success: false }
    window.printSeen = seen
    const look = () => {
      const status = document.querySelector('[data-testid=print-panel] [data-testid=print-job-status]')
      if (status) {
        const state = status.getAttribute('data-state')
        if (seen.states.at(-1) !== state) seen.states.push(state)
        const text = status.querySelector('p')?.textContent ?? ''
        if (seen.texts.at(-1) !== text) seen.texts.push(text)
      }
      if (document.body.textContent.includes('SUCCESS')) seen.success = true
    }
    new MutationObserver(look).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true })
  })
  const before = desk.documents().length
  const answer = page.waitForResponse(labelsPost('/labels/print'), { timeout: LIVE })
  await panel.getByRole('button', { name: 'Print', exact: true }).click()
  const res = await answer
  assert.equal(res.status(), 202, await res.text())
  const { job, result } = await res.json()
  assert.equal(job.state, 'queued', 'the answer is a queued job')
  assert.equal(result.status, 'SUCCESS', 'the server calls the making of the labels a success')
  const sent = JSON.parse(res.request().postData())
  assert.deepEqual(
    sent.ids.map((i) => i.print_count),
    [COPIES, COPIES],
    "Global Settings' copies are each line's count",
  )
  assert.equal(sent.type, 'receipts')
  assert.equal(sent.printer, 'Desk')

  const status = panel.locator(`[data-testid=print-job-status][data-state=completed]`)
  await status.waitFor({ timeout: LIVE })
  assert.equal(await status.locator('p').first().innerText(), `Desk printed job ${job.id}: ${job.labels} labels.`)
  const seen = await page.evaluate(() => window.printSeen)
  assert.equal(seen.success, false, `"SUCCESS" was shown: ${seen.texts.join(' | ')}`)
  assert.equal(seen.states[0], 'queued', `shown queued first: ${seen.states}`)
  assert.equal(seen.states.at(-1), 'completed')
  assert.equal(seen.texts[0], `Print job ${job.id} is queued for Desk.`)
  assert.equal((await api(page, `/printers/jobs/${job.id}`)).state, 'completed')
  assert.equal(desk.documents().length, before + 1, 'Desk received the job')
})

test('Receipts on a 390 × 844 handheld: the bar is on screen, 44 px high, and brings the panel', async () => {
  await page.setViewportSize({ width: 390, height: 844 })
  try {
    await page.goto(`${server.url}/receipts?division=${division}`)
    await page.getByTestId('receipt-count').waitFor({ timeout: LIVE })
    await labelledLines().nth(0).check()
    const bar = page.getByTestId('print-bar')
    const open = bar.getByRole('button', { name: 'Print labels (1)' })
    await open.waitFor()
    for (const button of [open, bar.getByRole('button', { name: 'Clear selection' })]) {
      const { box, shown } = await onScreen(button)
      assert.ok(shown, 'on screen')
      assert.ok(box.height >= 44 && box.width >= 44, `a 44 px target (${box.width}×${box.height})`)
    }
    const barBox = await bar.boundingBox()
    assert.ok(barBox.x <= 0.5 && barBox.width >= 389, `the bar spans the screen (${barBox.x}, ${barBox.width})`)
    assert.ok(Math.abs(barBox.y + barBox.height - 844) <= 1, `the bar sits on the bottom edge (${barBox.y + barBox.height})`)
    assert.ok((await page.getByTestId('print-panel').boundingBox()).y > 844, 'the panel is below the screen')
    await open.click()
    assert.ok((await onScreen(page.getByTestId('print-panel').getByRole('heading', { name: 'Labels for 1 line(s)' }))).shown)
    await bar.getByRole('button', { name: 'Clear selection' }).click()
    assert.equal(await page.getByTestId('print-panel').count(), 0)
    assert.equal(await bar.count(), 0)
  } finally {
    await page.setViewportSize({ width: 1440, height: 900 })
  }
})

test('no console errors on the way', () => {
  assert.deepEqual(errors, [])
})
