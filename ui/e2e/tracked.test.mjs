// Serial- and batch-tracked items on a handheld (390×844) against the demo, with a simulated
// keyboard-wedge scanner: a batch material issued to a shop order with its batch picked from the
// ones in stock, and a serial made item received with its serial barcodes scanned into the one
// scan field, a batch by-product of a shop order received with its batch scanned, and an item
// moved out of a warehouse without storage locations. Each of the first two meets Exact Online's refusal of wrong numbers, shown on the panel, then
// books; what was booked is looked up at the simulator.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { api, MOBILE_UA, same, scanCode, simulatorRows, syncedDemo, waitFor } from './flows.mjs'

let demo
let page

const rows = (path) => simulatorRows(demo.server, demo.division, path)
const isSet = (v) => v === true || v === 1 || v === '1'
const open = (o) => o.Status === 10 || o.Status === 20

/** A keyboard-wedge scan, apart from the one before by more than the scan field's bounce window. */
async function scan(code) {
  await page.waitForTimeout(150)
  await scanCode(page, code)
}

/** The panel's booking has its answer: 'delivered', or Exact's refusal ('failed', or 'refused' by the server at once). */
async function settled() {
  await page.waitForFunction(
    () => {
      const s = document.querySelector('[data-testid=write-status]')?.getAttribute('data-state')
      return s === 'delivered' || s === 'failed' || s === 'refused'
    },
    null,
    { timeout: 60_000 },
  )
  const status = page.getByTestId('write-status')
  return { state: await status.getAttribute('data-state'), text: await status.innerText() }
}

/** The item card of `code` after its scan (a new scan resets the panel). */
async function scanItem(code) {
  await scan(code)
  await page.getByTestId('scan-history').locator('li').first().getByText(code, { exact: true }).waitFor()
  await page.getByRole('status').filter({ hasText: 'Looking it up…' }).waitFor({ state: 'detached', timeout: 90_000 })
  await page.getByTestId('item-code').getByText(code, { exact: true }).waitFor()
}

before(async () => {
  demo = await syncedDemo({ viewport: { width: 390, height: 844 }, userAgent: MOBILE_UA, hasTouch: true, isMobile: true, locale: 'en-GB' })
  page = demo.page
  await page.goto(`${demo.server.url}/scanning?division=${demo.division}`)
  await page.locator('#scan-input').waitFor()
})

after(async () => {
  await demo?.browser.close()
  await demo?.server.stop()
})

test('a batch material is issued with its batch picked from the ones in stock', async () => {
  const [items, plans, orders] = await Promise.all([
    rows('logistics/Items'),
    rows('manufacturing/ShopOrderMaterialPlanDetails'),
    rows('manufacturing/ShopOrders'),
  ])
  const batchItems = new Map(items.filter((i) => isSet(i.IsBatchItem)).map((i) => [i.ID, i]))
  const openOrders = new Map(orders.filter(open).map((o) => [o.ID, o]))
  const plan = plans.find((p) => p.Type === 1 && batchItems.has(p.Item) && openOrders.has(p.ShopOrder) && p.PlannedQuantity - (p.IssuedQuantity ?? 0) >= 1)
  assert.ok(plan, 'the demo has a batch material on an open shop order')
  const item = batchItems.get(plan.Item)
  const order = openOrders.get(plan.ShopOrder)

  // the batches in stock, as the screen reads them: a location holding two or more, to pick the later one
  const numbers = await api(page, `/tracking/numbers?item=${item.ID}`)
  assert.equal(numbers.tracking, 'batch')
  const byLocation = new Map()
  for (const b of numbers.batches) if (b.location) byLocation.set(b.location, [...(byLocation.get(b.location) ?? []), b])
  // the list at a location is in the server's order (first-expiring first): one later than the first, holding enough
  const here = [...byLocation.values()].find((list) => list.slice(1).some((b) => b.quantity >= 1))
  assert.ok(here, 'a location holds two batches of the material')
  const picked = here.slice(1).find((b) => b.quantity >= 1)

  // the location in context, then the material
  await scan(picked.location_code)
  await page.getByTestId('scan-location').getByText(picked.location_code).waitFor({ timeout: 90_000 })
  await scanItem(item.Code)
  await page.getByRole('button', { name: 'Issue', exact: true }).first().click()
  await page
    .getByRole('radio', { name: new RegExp(`SO ${order.ShopOrderNumber} `) })
    .first()
    .check()
  await page.locator('#issue-qty').fill('1')
  const list = page.getByTestId('batch-list')
  await list.waitFor()
  // first-expiring first, and the quantity taken from it
  const first = here[0]
  assert.deepEqual(
    await page.getByTestId('batch-row').locator('.font-mono').allInnerTexts(),
    here.map((b) => b.number),
  )
  assert.equal(await page.getByLabel(`Quantity from batch ${first.number}`).inputValue(), String(Math.min(1, first.quantity)))

  // a batch that is not there: Exact refuses it, and the panel says so in its words
  for (const b of here) await page.getByLabel(`Quantity from batch ${b.number}`).fill('0')
  await page.getByRole('button', { name: 'Another batch' }).click()
  await page.getByLabel('Batch number, line 1').fill('NO-SUCH-BATCH')
  await page.getByLabel('Quantity, line 1').fill('1')
  await page.getByRole('button', { name: 'Issue', exact: true }).last().click()
  const refused = await settled()
  assert.notEqual(refused.state, 'delivered', refused.text)
  assert.match(refused.text, /NO-SUCH-BATCH/)

  // the batch picked from the list takes the whole quantity
  await page.getByRole('button', { name: 'Remove batch line 1' }).click()
  await page.getByRole('button', { name: `Take from ${picked.number} first` }).click()
  for (const b of here) assert.equal(await page.getByLabel(`Quantity from batch ${b.number}`).inputValue(), b === picked ? '1' : '0')
  await page.getByRole('button', { name: 'Issue', exact: true }).last().click()
  await page.getByTestId('write-status').and(page.locator('[data-state=delivered]')).waitFor({ timeout: 60_000 })

  const issue = await waitFor(
    async () => (await rows('manufacturing/MaterialIssues')).find((m) => same(m.ShopOrderMaterialPlan, plan.ID) && Number(m.Quantity) === 1),
    'the issue at the simulator',
  )
  const booked = await waitFor(
    async () => (await rows('inventory/StockBatchNumbers')).find((r) => same(r.StockTransactionID, issue.StockTransactionId) && !isSet(r.IsDraft)),
    'the issue’s batch at the simulator',
  )
  assert.equal(booked.BatchNumber, picked.number)
  assert.equal(Math.abs(Number(booked.Quantity)), 1)
})

test('a serial made item is received with its serial barcodes scanned', async () => {
  const [items, orders, serials] = await Promise.all([rows('logistics/Items'), rows('manufacturing/ShopOrders'), rows('inventory/SerialNumbers')])
  const serialItems = new Set(items.filter((i) => isSet(i.IsSerialItem)).map((i) => i.ID))
  const order = orders.find((o) => open(o) && serialItems.has(o.Item) && o.PlannedQuantity - (o.ProducedQuantity ?? 0) >= 2)
  assert.ok(order, 'the demo has an open shop order of a serial item')
  const inStock = serials.find((s) => same(s.Item, order.Item) && isSet(s.Available))
  assert.ok(inStock, 'a unit of the item is in stock with its serial number')

  await scan(`SO ${order.ShopOrderNumber}`)
  await page.getByTestId('scan-notice').getByText(`Shop order ${order.ShopOrderNumber}`).waitFor({ timeout: 90_000 })
  assert.equal(await page.locator('#receive-order').inputValue(), order.ID, 'the scanned order is chosen')
  await page.locator('#receive-qty').fill('2')
  const progress = page.getByTestId('serial-progress')
  await progress.getByText('0 of 2').waitFor()
  const receive = page.getByRole('button', { name: 'Receive', exact: true }).last()
  assert.ok(await receive.isDisabled(), 'no booking before the numbers are in')
  await page.getByTestId('numbers-not-ready').getByText('Scan 2 more serial number(s).').waitFor()

  // serial barcodes go to the list through the scan field; a number twice is refused on the spot
  await scan(inStock.SerialNumber)
  await progress.getByText('1 of 2').waitFor()
  await scan(inStock.SerialNumber)
  await page.getByTestId('serial-note').getByText(`Serial number ${inStock.SerialNumber} is in the list already.`).waitFor()
  assert.equal(await progress.innerText(), '1 of 2')
  await scan('E2E-SN-0001')
  await progress.getByText('2 of 2').waitFor()
  assert.equal(await page.getByTestId('scan-history').locator('li').first().innerText(), `SO ${order.ShopOrderNumber}`, 'serials are no item scans')

  // a number already in stock: Exact refuses the receipt, and the panel says so
  await receive.click()
  const refused = await settled()
  assert.notEqual(refused.state, 'delivered', refused.text)
  assert.match(refused.text, new RegExp(inStock.SerialNumber))

  await page.getByRole('button', { name: `Remove serial number ${inStock.SerialNumber}` }).click()
  await scan('E2E-SN-0002')
  await progress.getByText('2 of 2').waitFor()
  await receive.click()
  await page.getByTestId('write-status').and(page.locator('[data-state=delivered]')).waitFor({ timeout: 60_000 })

  const receipt = await waitFor(
    async () => (await rows('manufacturing/ShopOrderReceipts')).find((r) => same(r.ShopOrder, order.ID) && Number(r.Quantity) === 2),
    'the receipt at the simulator',
  )
  const booked = await waitFor(async () => {
    const found = (await rows('inventory/StockSerialNumbers')).filter((r) => same(r.StockTransactionID, receipt.StockTransactionId) && !isSet(r.IsDraft))
    return found.length === 2 && found
  }, 'the receipt’s serial numbers at the simulator')
  assert.deepEqual(booked.map((r) => r.SerialNumber).sort(), ['E2E-SN-0001', 'E2E-SN-0002'])
})

test('a batch by-product is received with its batch scanned', async () => {
  const [items, plans, orders] = await Promise.all([
    rows('logistics/Items'),
    rows('manufacturing/ShopOrderMaterialPlanDetails'),
    rows('manufacturing/ShopOrders'),
  ])
  const batchItems = new Set(items.filter((i) => isSet(i.IsBatchItem)).map((i) => i.ID))
  const openOrders = new Map(orders.filter(open).map((o) => [o.ID, o]))
  const line = plans.find((p) => p.Type === 2 && batchItems.has(p.Item) && openOrders.has(p.ShopOrder))
  assert.ok(line, 'the demo has a batch-tracked by-product on an open shop order')
  const order = openOrders.get(line.ShopOrder)
  const before = (await rows('manufacturing/ByProductReceipts')).length

  await scan(`SO ${order.ShopOrderNumber}`)
  await page.getByTestId('scan-notice').getByText(`Shop order ${order.ShopOrderNumber}`).waitFor({ timeout: 90_000 })
  await page.getByRole('button', { name: 'Receive a by-product (1)…' }).click()
  const panel = page.getByRole('form', { name: 'Receive a by-product' })
  assert.ok(same(await panel.locator('#by-product-line').inputValue(), line.ID), 'the only by-product is chosen')
  assert.equal(await panel.locator('#by-product-qty').inputValue(), String(line.PlannedQuantity))
  const submit = panel.getByRole('button', { name: 'Receive by-product' })
  assert.ok(await submit.isDisabled(), 'no booking before its batch is in')

  // the batch's barcode goes to the by-product's batch line through the one scan field
  await scan('REST-E2E-1')
  await waitFor(async () => (await panel.getByLabel('Batch number, line 1').inputValue()) === 'REST-E2E-1', 'the scanned batch in its line', 10_000)
  assert.equal(await page.getByTestId('scan-history').locator('li').first().innerText(), `SO ${order.ShopOrderNumber}`, 'a batch is no item scan')
  await submit.click()
  await page.getByTestId('write-status').and(page.locator('[data-state=delivered]')).waitFor({ timeout: 60_000 })
  // booked: the form closes, so the next scan is an item's again, not another batch
  await panel.waitFor({ state: 'detached' })
  await page.getByRole('button', { name: 'Receive a by-product (1)…' }).waitFor()

  const receipt = await waitFor(
    async () =>
      (await rows('manufacturing/ByProductReceipts')).length > before &&
      (await rows('manufacturing/ByProductReceipts')).find((r) => same(r.ShopOrderMaterialPlan, line.ID)),
    'the by-product receipt at the simulator',
  )
  const booked = await waitFor(async () => {
    const found = (await rows('inventory/StockBatchNumbers')).filter((r) => same(r.StockTransactionID, receipt.StockTransactionId) && !isSet(r.IsDraft))
    return found.length === 1 && found[0]
  }, 'the receipt’s batch at the simulator')
  assert.equal(booked.BatchNumber, 'REST-E2E-1')
  assert.equal(Number(booked.Quantity), Number(line.PlannedQuantity))
})

test('stock moves out of a warehouse without storage locations into a located one', async () => {
  const [warehouses, items] = await Promise.all([rows('inventory/Warehouses'), rows('logistics/Items')])
  const unlocated = new Map(warehouses.filter((w) => w.UseStorageLocations === 0 || w.UseStorageLocations === false).map((w) => [w.ID.toLowerCase(), w]))
  assert.ok(unlocated.size > 0, 'the demo has a warehouse without storage locations')
  const untracked = new Map(items.filter((i) => !isSet(i.IsSerialItem) && !isSet(i.IsBatchItem)).map((i) => [i.ID.toLowerCase(), i]))
  const positions = (
    await Promise.all(
      [...unlocated.keys()].map((w) => api(page, `/db/stockPositions?Warehouse=eq.${w}&CurrentStock=gte.1&select=ItemId,Warehouse,CurrentStock&limit=500`)),
    )
  ).flat()
  const held = positions.find((p) => untracked.has(p.ItemId.toLowerCase()))
  assert.ok(held, 'an untracked item in stock there')
  const item = untracked.get(held.ItemId.toLowerCase())
  const from = unlocated.get(held.Warehouse.toLowerCase())

  // a fresh screen: the receive panel left open above still waits for its serials
  await page.goto(`${demo.server.url}/scanning?division=${demo.division}`)
  await page.locator('#scan-input').waitFor()
  await scanItem(item.Code)
  await page.getByRole('button', { name: 'Transfer', exact: true }).first().click()
  const source = page.locator('#transfer-from')
  await source.selectOption(`warehouse:${from.ID.toLowerCase()}`)
  assert.match(await source.locator('option:checked').innerText(), /no storage locations/)
  // into a storage location of a located warehouse
  const target = await page.locator('#transfer-to option').evaluateAll((os) => os.map((o) => o.value).find((v) => v && !v.startsWith('warehouse:')))
  assert.ok(target, 'a storage location to move to')
  await page.locator('#transfer-to').selectOption(target)
  await page.locator('#transfer-qty').fill('1')
  await page.getByRole('button', { name: 'Transfer', exact: true }).last().click()
  await page.getByTestId('write-status').and(page.locator('[data-state=delivered]')).waitFor({ timeout: 60_000 })

  const line = await waitFor(
    async () => (await rows('inventory/WarehouseTransferLines')).find((l) => same(l.Item, item.ID) && same(l.StorageLocationTo, target)),
    'the transfer line at the simulator',
  )
  assert.equal(line.StorageLocationFrom ?? null, null, 'no location in a warehouse that keeps none')
  assert.equal(Number(line.Quantity), 1)
  const transfer = (await rows('inventory/WarehouseTransfers')).find((t) => t.TransferID === line.TransferID)
  assert.ok(same(transfer.WarehouseFrom, from.ID), 'out of the warehouse without locations')
  assert.ok(!same(transfer.WarehouseTo, from.ID), 'into another warehouse')
})

test('no console errors on the way', () => {
  assert.deepEqual(demo.errors, [])
})
