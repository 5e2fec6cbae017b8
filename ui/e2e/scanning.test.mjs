// The handheld screens against the demo, at a phone's size with a simulated keyboard-wedge
// scanner: Scanning (item card, location context, count, issue, transfer, bounce filter) and
// ImportData (re-authentication, export, checked preview, import). Every write is looked up
// at the simulator afterwards.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { activate, api, MOBILE_UA, scanCode, signIn, syncSettled, watchConsole } from './flows.mjs'
import { launchBrowser, startServer } from './server.mjs'

const ADMIN_PASSWORD = 'e2e-admin-secret'

let server
let browser
let context
let page
let errors
let division
let sim
let pick

/** Rows of any path at the simulator, as it holds them now. */
async function simRows(path) {
  const res = await fetch(`${sim}/_sim/rows/${division}/${path}`)
  assert.ok(res.ok, `${path} at the simulator answered ${res.status}`)
  return res.json()
}

/** A keyboard-wedge scan: the code typed fast, then Enter. */
const scan = (code) => scanCode(page, code)

const historyCount = () => page.getByTestId('scan-history').locator('li').count()

async function waitFor(what, check, timeoutMs = 30_000) {
  const end = Date.now() + timeoutMs
  while (Date.now() < end) {
    const found = await check()
    if (found) return found
    await new Promise((r) => setTimeout(r, 500))
  }
  throw new Error(`${what} did not happen within ${timeoutMs} ms`)
}

/** The write's outbox state on the panel reaches "delivered". */
async function delivered() {
  const state = page.getByTestId('write-status')
  await state.waitFor()
  await page.waitForFunction(
    () => {
      const s = document.querySelector('[data-testid=write-status]')?.getAttribute('data-state')
      return s === 'delivered' || s === 'failed' || s === 'refused'
    },
    null,
    { timeout: 60_000 },
  )
  assert.equal(await state.getAttribute('data-state'), 'delivered', await state.innerText())
}

before(async () => {
  process.env.ESM_ADMIN__PASSWORD = ADMIN_PASSWORD
  server = await startServer('demo')
  browser = await launchBrowser()
  context = await browser.newContext({
    viewport: { width: 412, height: 915 },
    userAgent: MOBILE_UA,
    hasTouch: true,
    isMobile: true,
    locale: 'en-GB',
  })
  page = await context.newPage()
  errors = watchConsole(page)
})

after(async () => {
  await browser?.close()
  await server?.stop()
})

test('sign in on a phone, activate and sync', async () => {
  await signIn(page, server.url)
  await activate(page, server.url, server.lines['Licence code'])
  division = new URL(page.url()).searchParams.get('division')
  // the demo prints the simulator's address after its own
  sim = await waitFor('the Simulator line', async () => server.lines.Simulator)
  await api(page, '/sync', { method: 'POST', body: {} })
  // a debug build on a busy machine: the first full sync can take minutes
  await syncSettled(page, 300_000)

  // an item with stock in a storage location that an open shop order needs
  const [stock, plans, orders, locations, items] = await Promise.all([
    simRows('sync/Inventory/StorageLocationStockPositions'),
    simRows('manufacturing/ShopOrderMaterialPlanDetails'),
    simRows('manufacturing/ShopOrders'),
    simRows('inventory/StorageLocations'),
    simRows('logistics/Items'),
  ])
  // serial and batch items ask for their numbers (tracked.test.mjs books those)
  const tracked = new Set(items.filter((i) => i.IsSerialItem === true || i.IsBatchItem === 1 || i.IsBatchItem === true).map((i) => i.ID))
  const open = new Map(orders.filter((o) => o.Status === 10 || o.Status === 20).map((o) => [o.ID, o]))
  for (const plan of plans) {
    const order = open.get(plan.ShopOrder)
    // an issue above what the line still needs asks for a confirmation (quantities.test.mjs)
    if (plan.Type !== 1 || !order || plan.PlannedQuantity - (plan.IssuedQuantity ?? 0) < 1) continue
    if (tracked.has(plan.Item)) continue
    const row = stock.find((s) => s.Item === plan.Item && s.Stock >= 3 && s.StorageLocation)
    if (!row) continue
    const other = locations.find((l) => l.Warehouse === row.Warehouse && l.ID !== row.StorageLocation)
    if (!other) continue
    pick = { item: plan.Item, code: plan.ItemCode, plan: plan.ID, order, from: row, to: other }
    break
  }
  assert.ok(pick, 'the demo has an item in stock that an open shop order needs')
  pick.receive = orders.find((o) => o.Status === 10 && o.PlannedQuantity > o.ProducedQuantity + 1 && !tracked.has(o.Item))
  assert.ok(pick.receive, 'the demo has an open shop order to receive')
})

test('scanning an item shows its card with stock per location', async () => {
  // a handheld's header keeps the screens' links in its menu
  await page.getByRole('banner').getByRole('button', { name: 'Menu' }).click()
  await page.getByRole('navigation').getByRole('link', { name: 'Warehouse' }).click()
  await page.waitForURL(/\/scanning\?division=\d+/)
  await page.locator('#scan-input').waitFor()
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'scan-input', 'the scan field has the focus')
  await scan(pick.code)
  const card = page.getByTestId('item-card')
  await card.waitFor()
  assert.equal(await page.getByTestId('item-code').innerText(), pick.code)
  const row = page.locator(`[data-testid=item-stock] tr[data-location="${pick.from.StorageLocationCode}"]`)
  await row.waitFor()
  assert.match(await row.innerText(), new RegExp(String(pick.from.Stock)))
  // a code nobody has is said plainly
  await scan('NO-SUCH-CODE-1')
  await page.getByTestId('scan-notice').getByText('Nothing has the code "NO-SUCH-CODE-1"').waitFor({ timeout: 90_000 })
})

test('the same scan repeated within 100 ms is ignored', async () => {
  const before = await historyCount()
  // when each scan reached the form, on the page's clock (on a busy machine the two may come more
  // than 100 ms apart: then they are two scans, and that is checked instead)
  await page.evaluate(() => {
    const times = []
    window.__scanTimes = times
    document.querySelector('#scan-input').form.addEventListener('submit', () => times.push(performance.now()), { capture: true })
  })
  await page.locator('#scan-input').focus()
  await page.keyboard.insertText(pick.code)
  await page.keyboard.press('Enter')
  await page.keyboard.insertText(pick.code)
  await page.keyboard.press('Enter')
  await page.waitForTimeout(300)
  const [first, second] = await page.evaluate(() => window.__scanTimes)
  if (second - first < 100) assert.equal(await historyCount(), Math.min(5, before + 1), 'the bounce was dropped')
  else assert.equal(await historyCount(), Math.min(5, before + 2), `${Math.round(second - first)} ms apart: two scans`)
  // the same code after the window is a new scan
  await page.keyboard.insertText('NO-SUCH-CODE-2')
  await page.keyboard.press('Enter')
  await page.getByTestId('scan-notice').getByText('NO-SUCH-CODE-2').waitFor({ timeout: 90_000 })
  const items = await page.getByTestId('scan-history').locator('li').allInnerTexts()
  assert.deepEqual(items.slice(0, 2), ['NO-SUCH-CODE-2', pick.code])
})

test('scan a location, then count: the simulator has the count with that quantity', async () => {
  await scan(pick.to.Code)
  // the first location scan may wait for Exact's list while the sync's calls fill the minute
  await page.getByTestId('scan-location').getByText(pick.to.Code).waitFor({ timeout: 90_000 })
  // what the local copy expects on that shelf is listed, so a counter sees what should be there
  const onShelf = (await simRows('sync/Inventory/StorageLocationStockPositions')).filter((p) => p.StorageLocation === pick.to.ID && p.Stock > 0)
  const contents = page.getByTestId('location-contents')
  await contents.getByText(`Expected at`).waitFor()
  if (onShelf.length === 0) await contents.getByText('The local copy has no stock here.', { exact: false }).waitFor()
  else {
    await contents.getByText(onShelf[0].ItemCode, { exact: true }).first().waitFor()
    assert.equal(await contents.getByRole('listitem').count(), Math.min(onShelf.length, 50))
  }
  await scan(pick.code)
  // the previous test's card of this item is still shown: wait for this lookup to end, or the
  // Count click lands before the new card replaces it (a new scan resets the chosen action)
  await page.getByTestId('scan-history').locator('li').first().getByText(pick.code, { exact: true }).waitFor()
  await page.getByRole('status').filter({ hasText: 'Looking it up…' }).waitFor({ state: 'detached', timeout: 90_000 })
  await page.getByTestId('item-card').waitFor()
  await page.getByRole('button', { name: 'Count', exact: true }).click()
  assert.equal(await page.locator('#count-where').inputValue(), pick.to.ID, 'the location in context is preselected')
  // bad input is refused with a message, nothing is sent
  await page.locator('#count-qty').fill('seven')
  await page.getByRole('button', { name: 'Save the count' }).click()
  await page.getByText('Enter a number, such as 2 or 2,5.').waitFor()
  await page.locator('#count-qty').fill('7')
  await page.getByRole('button', { name: 'Save the count' }).click()
  // 7 where the copy expects something else by a unit and a tenth asks first, naming the difference
  const there = (await simRows('sync/Inventory/StorageLocationStockPositions')).find((p) => p.Item === pick.item && p.StorageLocation === pick.to.ID)
  const expected = Number(there?.Stock ?? 0)
  if (Math.abs(7 - expected) >= 1 && Math.abs(7 - expected) >= expected / 10) {
    const ask = page.getByRole('alertdialog')
    await ask.getByText(`where ${expected.toLocaleString('en-GB', { maximumFractionDigits: 3 })} is expected`, { exact: false }).waitFor()
    await ask.getByRole('button', { name: 'Save anyway' }).click()
  }
  await delivered()
  const line = await waitFor('the count at the simulator', async () =>
    (await simRows('inventory/StockCountLines')).find((l) => l.Item === pick.item && l.StorageLocation === pick.to.ID),
  )
  assert.equal(Number(line.QuantityNew), 7)
})

test('issue to a shop order: the simulator has the material issue', async () => {
  // the demo's own issues of the line (what was issued before) are not this one
  const before = new Set((await simRows('manufacturing/MaterialIssues')).map((m) => m.StockTransactionId))
  await page.getByRole('button', { name: 'Issue', exact: true }).click()
  await page
    .getByRole('radio', { name: new RegExp(`SO ${pick.order.ShopOrderNumber} `) })
    .first()
    .check()
  await page.locator('#issue-qty').fill('1')
  await page.locator('#issue-from').selectOption(pick.from.StorageLocation)
  await page.getByRole('button', { name: 'Issue', exact: true }).last().click()
  await delivered()
  const issue = await waitFor('the material issue at the simulator', async () =>
    (await simRows('manufacturing/MaterialIssues')).find((m) => m.ShopOrderMaterialPlan === pick.plan && !before.has(m.StockTransactionId)),
  )
  assert.equal(Number(issue.Quantity), 1)
  assert.equal(issue.StorageLocation, pick.from.StorageLocation)
})

test('transfer between locations: the simulator has the warehouse transfer', async () => {
  await page.getByRole('button', { name: 'Transfer', exact: true }).first().click()
  await page.locator('#transfer-from').selectOption(pick.from.StorageLocation)
  await page.locator('#transfer-to').selectOption(pick.from.StorageLocation)
  await page.locator('#transfer-qty').fill('2')
  await page.getByRole('button', { name: 'Transfer', exact: true }).last().click()
  await page.getByText('From and to are the same location.').waitFor()
  await page.locator('#transfer-to').selectOption(pick.to.ID)
  await page.getByRole('button', { name: 'Transfer', exact: true }).last().click()
  await delivered()
  const line = await waitFor('the transfer at the simulator', async () =>
    (await simRows('inventory/WarehouseTransferLines')).find(
      (l) => l.Item === pick.item && l.StorageLocationFrom === pick.from.StorageLocation && l.StorageLocationTo === pick.to.ID,
    ),
  )
  assert.equal(Number(line.Quantity), 2)
  assert.ok((await simRows('inventory/WarehouseTransfers')).some((t) => t.TransferID === line.TransferID))
})

test('scan a shop order and receive it: the simulator has the shop order receipt', async () => {
  const order = pick.receive
  await scan(`SO ${order.ShopOrderNumber}`)
  await page.getByTestId('scan-notice').getByText(`Shop order ${order.ShopOrderNumber}`).waitFor()
  assert.equal(await page.getByTestId('item-code').innerText(), order.ItemCode)
  assert.equal(await page.locator('#receive-order').inputValue(), order.ID, 'the scanned order is chosen')
  await page.locator('#receive-qty').fill('0')
  await page.getByRole('button', { name: 'Receive', exact: true }).last().click()
  await page.getByText('The quantity must be more than 0.').waitFor()
  await page.locator('#receive-qty').fill('1')
  await page.getByRole('button', { name: 'Receive', exact: true }).last().click()
  await delivered()
  const receipt = await waitFor('the receipt at the simulator', async () =>
    (await simRows('manufacturing/ShopOrderReceipts')).find((r) => r.ShopOrder === order.ID),
  )
  assert.equal(Number(receipt.Quantity), 1)
})

test("the item's label opens as a PDF in a new tab", async () => {
  await page.getByRole('button', { name: 'Label', exact: true }).click()
  const [popup, res] = await Promise.all([
    context.waitForEvent('page'),
    // labels read Exact live, which may wait for the minute's budget after the writes
    page.waitForResponse((r) => r.url().endsWith('/api/v1/labels') && r.request().method() === 'POST', { timeout: 90_000 }),
    page.getByRole('button', { name: 'Open as PDF' }).click(),
  ])
  assert.equal(res.status(), 200, await res.text())
  assert.equal(res.headers()['content-type'], 'application/pdf')
  assert.deepEqual(JSON.parse(res.request().postData()).ids, [pick.receive.Item])
  await popup.close()
})

/** Open purchase order lines at the simulator, with their order and whether the item is tracked by number. */
async function openPurchaseLines() {
  const [orders, lines, items] = await Promise.all([
    simRows('purchaseorder/PurchaseOrders'),
    simRows('purchaseorder/PurchaseOrderLines'),
    simRows('logistics/Items'),
  ])
  const tracked = new Set(items.filter((i) => i.IsSerialItem === true || i.IsBatchItem === 1 || i.IsBatchItem === true).map((i) => i.ID))
  const open = new Map(orders.filter((o) => o.ReceiptStatus < 30).map((o) => [o.PurchaseOrderID, o]))
  return lines
    .filter((l) => open.has(l.PurchaseOrderID) && l.QuantityInPurchaseUnits - l.ReceivedQuantity > 0)
    .map((l) => ({ ...l, order: open.get(l.PurchaseOrderID), tracked: tracked.has(l.Item) }))
}

/**
 * An untracked line with a barcoded item and at least one open, of an order of several open
 * lines where no other open line (of any order) has that item; with the order's open lines.
 */
function lineWithBarcode(lines, skip = () => false) {
  const byOrder = new Map()
  for (const l of lines) byOrder.set(l.PurchaseOrderID, [...(byOrder.get(l.PurchaseOrderID) ?? []), l])
  for (const list of byOrder.values()) {
    if (list.length < 2) continue
    const line = list.find(
      (l) =>
        !l.tracked &&
        !skip(l) &&
        l.QuantityInPurchaseUnits - l.ReceivedQuantity >= 1 &&
        /^\d{13}$/.test(l.ItemBarcode ?? '') &&
        lines.filter((x) => x.Item === l.Item).length === 1,
    )
    if (line) return { line, lines: list }
  }
  return null
}

/** The purchase orders received by these tests. */
const received = new Set()

const receivedLine = (id, quantity) =>
  waitFor('the goods receipt line at the simulator', async () =>
    (await simRows('purchaseorder/GoodsReceiptLines')).find((r) => r.PurchaseOrderLineID === id && Number(r.QuantityReceived) === quantity),
  )

test('scan "PO n" on Scanning, then the box\'s barcode: its line is received', async () => {
  const found = lineWithBarcode(await openPurchaseLines())
  assert.ok(found, 'the demo has an open purchase order of several lines with a barcoded item')
  const { line, lines } = found
  received.add(line.PurchaseOrderID)
  await page.goto(`${server.url}/scanning?division=${division}`)
  await page.locator('#scan-input').waitFor()
  await scan(`PO ${line.order.OrderNumber}`)
  const list = page.getByTestId('purchase-lines')
  await list.waitFor({ timeout: 90_000 })
  assert.equal(await list.getByRole('button').count(), lines.length, 'every open line of the order is offered')
  // the box carries the GTIN-14 of the item's EAN-13: the same number with a zero in front
  await scan(`0${line.ItemBarcode}`)
  await page.getByTestId('item-code').getByText(line.ItemCode, { exact: true }).waitFor()
  assert.equal(await page.locator('#receive-order').inputValue(), `po:${line.ID}`, "the scanned order's line is chosen")
  await page.locator('#receive-qty').fill('1')
  await page.getByRole('button', { name: 'Receive', exact: true }).last().click()
  await delivered()
  await receivedLine(line.ID, 1)
})

test('Receive goods takes "PO n" and the box\'s EAN from a scanner', async () => {
  // not the order received on Scanning above
  const open = await openPurchaseLines()
  const found = lineWithBarcode(open, (l) => received.has(l.PurchaseOrderID))
  assert.ok(found, 'the demo has another barcoded open line')
  const { line, lines } = found
  await page.goto(`${server.url}/receipts?division=${division}`)
  await page.getByRole('button', { name: 'Receive goods' }).click()
  const dialog = page.getByRole('dialog')
  await dialog.getByTestId('open-line-count').waitFor({ timeout: 120_000 })
  const box = dialog.getByLabel('Scan or search')
  await box.fill(`PO ${line.order.OrderNumber}`)
  await dialog.getByTestId('open-line-count').getByText(`${lines.length} of ${lines.length}`).waitFor()
  assert.equal(await dialog.getByTestId('open-line').count(), lines.length, "the order's open lines only")
  // a wedge scanner types the box's EAN and Enter: the one line is picked
  await box.fill('')
  await box.pressSequentially(line.ItemBarcode)
  await box.press('Enter')
  const row = dialog.getByTestId('open-line').filter({ hasText: line.ItemCode })
  assert.ok(await row.getByRole('checkbox').isChecked(), 'the scanned line is picked')
  await row.getByLabel('Quantity received').fill('1')
  await dialog.getByRole('button', { name: /Receive 1 line/ }).click()
  await delivered()
  await receivedLine(line.ID, 1)
  await dialog.getByRole('button', { name: 'Close' }).click()
})

test('Transfers take the scanned codes of the locations to move from and to', async () => {
  // back from where the tests above counted 7 and moved 2: the count's location holds the item
  const source = pick.to
  const target = { ID: pick.from.StorageLocation, Code: pick.from.StorageLocationCode }
  await page.goto(`${server.url}/transfers?division=${division}`)
  const box = page.getByLabel('Item')
  await box.fill(pick.code)
  await box.press('Enter')
  await page.getByTestId('transfer-item').waitFor()
  const from = page.locator('select[name=from]')
  await page.waitForFunction((loc) => [...document.querySelectorAll('select[name=from] option')].some((o) => o.value === loc), source.ID.toLowerCase(), {
    timeout: 60_000,
  })
  // the wedge scanner types into the box, which keeps the focus
  await page.keyboard.type(source.Code.toLowerCase())
  await page.keyboard.press('Enter')
  await page.getByTestId('transfer-scan-note').getByText('taking from there').waitFor()
  assert.equal(await from.inputValue(), source.ID.toLowerCase())
  await page.keyboard.type(target.Code)
  await page.keyboard.press('Enter')
  await page.getByTestId('transfer-scan-note').getByText('putting it there').waitFor()
  assert.equal(await page.locator('select[name=to]').inputValue(), target.ID.toLowerCase())
  await page.getByLabel('Quantity').fill('1')
  await page.getByRole('button', { name: 'Transfer', exact: true }).click()
  await delivered()
  await waitFor('the scanned transfer at the simulator', async () =>
    (await simRows('inventory/WarehouseTransferLines')).find(
      (l) => l.Item === pick.item && l.StorageLocationFrom === source.ID && l.StorageLocationTo === target.ID && Number(l.Quantity) === 1,
    ),
  )
})

test('ImportData: re-authenticate, export, preview the counts, import', async () => {
  await page.goto(`${server.url}/importData?division=${division}`)
  await page.getByRole('heading', { name: 'Confirm it is you' }).waitFor()
  await page.getByLabel('Admin password').fill('wrong')
  await page.getByRole('button', { name: 'Confirm' }).click()
  await page.getByText('The password is not correct').waitFor()
  await page.getByLabel('Admin password').fill(ADMIN_PASSWORD)
  await page.getByRole('button', { name: 'Confirm' }).click()
  await page.getByRole('heading', { name: 'Import data' }).waitFor()

  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export the local copy' }).click()])
  const dir = mkdtempSync(join(tmpdir(), 'esm-import-'))
  const exported = join(dir, 'export.ndjson')
  await download.saveAs(exported)
  const lines = readFileSync(exported, 'utf8').trim().split('\n')
  const header = JSON.parse(lines[0])
  assert.equal(String(header.division), division)
  assert.ok(header.tables.items > 0)

  // another organization's file is refused before anything is sent
  const foreign = join(dir, 'foreign.ndjson')
  writeFileSync(foreign, JSON.stringify({ ...header, division: 1 }) + '\n')
  await page.getByLabel('Export file').setInputFiles(foreign)
  await page.getByText(/This export is of division 1, not of the organization/).waitFor()

  // the export without its last item: after the import that item is gone from the local copy
  const itemLines = lines.filter((l) => l.startsWith('{"table":"items"'))
  const dropped = JSON.parse(itemLines[itemLines.length - 1]).row
  const smaller = join(dir, 'smaller.ndjson')
  writeFileSync(smaller, lines.filter((l) => l !== itemLines[itemLines.length - 1]).join('\n') + '\n')
  await page.getByLabel('Export file').setInputFiles(smaller)
  const preview = page.getByTestId('import-preview')
  await preview.waitFor()
  assert.equal((await preview.locator('tr[data-table=items] td').last().innerText()).replace(/\D/g, ''), String(header.tables.items - 1))
  assert.equal((await api(page, `/db/items?ID=eq.${dropped.ID}`)).length, 1, 'the preview changed nothing')
  await page.getByRole('button', { name: 'Import and replace these tables' }).click()
  await page.getByRole('button', { name: 'Yes, import' }).click()
  await page.getByTestId('import-result').waitFor({ timeout: 60_000 })
  assert.equal((await api(page, `/db/items?ID=eq.${dropped.ID}`)).length, 0, 'the import replaced the items')
  assert.equal((await api(page, `/db/items?limit=1`)).length, 1)
})

test('no console errors on the way', () => {
  assert.deepEqual(errors, [])
})
