// Receipts, Transfers and Hours against the demo: each flow writes through the outbox and the
// simulator is asked whether Exact Online changed as the user meant.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { api, same, simulatorRows, syncedDemo } from './flows.mjs'

let server
let browser
let page
let errors
let division

before(async () => {
  ;({ server, browser, page, errors, division } = await syncedDemo({ viewport: { width: 1280, height: 900 }, locale: 'en-GB' }))
})

after(async () => {
  await browser?.close()
  await server?.stop()
})

/** Rows of a provider path as the simulator holds them now. */
const rows = (path) => simulatorRows(server, division, path)

async function delivered(scope = page) {
  const status = scope.getByTestId('write-status').first()
  await status.waitFor()
  await page.waitForFunction(
    () => {
      const s = document.querySelector('[data-testid=write-status]')
      return s && ['delivered', 'failed'].includes(s.getAttribute('data-state'))
    },
    null,
    { timeout: 120_000 },
  )
  assert.equal(await status.getAttribute('data-state'), 'delivered', await status.innerText())
}

test('Receipts: receive an open purchase order line, then open its labels as a PDF', async () => {
  const orders = (await rows('purchaseorder/PurchaseOrders')).filter((o) => o.ReceiptStatus < 30)
  const line = (await rows('purchaseorder/PurchaseOrderLines')).find(
    (l) => l.Quantity - l.ReceivedQuantity >= 2 && !/ZV/.test(l.ItemCode) && orders.some((o) => same(o.PurchaseOrderID, l.PurchaseOrderID)),
  )
  assert.ok(line, 'the demo has an open purchase order line')
  const order = orders.find((o) => same(o.PurchaseOrderID, line.PurchaseOrderID))
  const before = (await rows('purchaseorder/GoodsReceiptLines')).length

  await page.goto(`${server.url}/receipts?division=${division}`)
  await page.getByTestId('receipt-count').waitFor({ timeout: 120_000 })
  assert.ok(await page.getByText('loads only the last 30 days').isVisible())

  await page.getByRole('button', { name: 'Receive goods' }).click()
  const dialog = page.getByRole('dialog')
  await dialog.getByTestId('open-line-count').waitFor({ timeout: 120_000 })
  // the scan box narrows the lines; Enter on a single match picks it
  await dialog.getByLabel('Scan or search').fill(`${line.ItemCode} ${order.OrderNumber}`)
  const row = dialog.getByTestId('open-line').filter({ hasText: `PO ${order.OrderNumber} ` })
  await row.first().waitFor()
  await row.first().getByRole('checkbox').check()
  const qty = row.first().getByLabel('Quantity received')
  await qty.fill('abc')
  await dialog.getByText('Enter a number, such as 4 or 2,5.').waitFor()
  assert.ok(await dialog.getByRole('button', { name: /Receive 1 line/ }).isDisabled())
  await qty.fill(String(line.Quantity - line.ReceivedQuantity + 1))
  await dialog.getByText(/is still open on this line/).waitFor()
  await qty.fill('2')
  await dialog.getByRole('button', { name: /Receive 1 line/ }).click()
  await delivered(dialog)

  const after = await rows('purchaseorder/GoodsReceiptLines')
  assert.equal(after.length, before + 1)
  const received = after.find((l) => same(l.PurchaseOrderLineID, line.ID) && l.QuantityReceived === 2)
  assert.ok(received, 'a goods receipt line with quantity 2 exists for the purchase order line')
  const poLine = (await rows('purchaseorder/PurchaseOrderLines')).find((l) => same(l.ID, line.ID))
  assert.equal(poLine.ReceivedQuantity, line.ReceivedQuantity + 2)

  await dialog.getByRole('button', { name: 'Close' }).click()
  // the new receipt is listed; pick its line for labels
  await page.getByLabel('Search receipts').fill(line.ItemCode)
  const pick = page.getByRole('checkbox', { name: `Pick ${line.ItemCode} for labels` }).first()
  await pick.waitFor({ timeout: 120_000 })
  await pick.check()
  const panel = page.getByTestId('print-panel')
  await panel.waitFor()
  await page.waitForFunction(() => !document.querySelector('[data-testid=needed-by]')?.textContent.includes('Looking'))
  assert.match(await panel.getByTestId('needed-by').first().innerText(), /Needed by shop orders|No open shop order needs/)

  // the labels read their data live from Exact Online, which may first wait for its minute budget
  const labels = page.waitForResponse((r) => r.url().endsWith('/api/v1/labels') && r.request().method() === 'POST', { timeout: 120_000 })
  const popup = page.waitForEvent('popup', { timeout: 120_000 })
  await panel.getByRole('button', { name: 'Open PDF' }).click()
  const res = await labels
  assert.equal(res.status(), 200)
  assert.match(res.headers()['content-type'], /application\/pdf/)
  const tab = await popup
  await tab.waitForURL(/^blob:/, { timeout: 30_000 })
  // what opened in the tab is the PDF itself
  const head = await tab.evaluate(async () => (await (await fetch(location.href)).text()).slice(0, 4))
  assert.equal(head, '%PDF')
  await panel.getByTestId('label-result').waitFor()
  await tab.close()
  assert.deepEqual(errors, [])
})

test('Transfers: move stock between storage locations, refused when above the stock', async () => {
  const positions = await rows('sync/Inventory/StorageLocationStockPositions')
  const locations = await rows('inventory/StorageLocations')
  const items = await rows('logistics/Items')
  // an item tracked by no number: a serial or batch item would ask for its numbers first
  const untracked = (i) => i.IsSerialItem !== true && i.IsBatchItem !== 1 && i.IsBatchItem !== true
  const source = positions.find((p) => p.Stock >= 3 && p.StorageLocation && items.some((i) => same(i.ID, p.Item) && i.Code === p.ItemCode && untracked(i)))
  assert.ok(source, 'the demo has stock at a storage location')
  const target = locations.find((l) => !same(l.ID, source.StorageLocation) && !same(l.Warehouse, source.Warehouse))
  const stockAt = (list, loc) => list.filter((p) => same(p.Item, source.Item) && same(p.StorageLocation, loc)).reduce((s, p) => s + p.Stock, 0)
  const fromBefore = stockAt(positions, source.StorageLocation)
  const toBefore = stockAt(positions, target.ID)

  await page.goto(`${server.url}/transfers?division=${division}`)
  await page.getByLabel('Item').fill(source.ItemCode)
  await page.getByLabel('Item').press('Enter')
  await page.getByTestId('transfer-item').waitFor()
  const from = page.getByLabel('From location')
  await page.waitForFunction(
    (loc) => [...document.querySelectorAll('select[name=from] option')].some((o) => o.value === loc),
    source.StorageLocation.toLowerCase(),
  )
  await from.selectOption(source.StorageLocation.toLowerCase())
  await page.getByLabel('To location').selectOption(source.StorageLocation.toLowerCase())
  await page.getByLabel('Quantity').fill('1')
  await page.getByRole('button', { name: 'Transfer', exact: true }).click()
  await page.getByText('The stock is already there').waitFor()
  await page.getByLabel('To location').selectOption(target.ID.toLowerCase())
  await page.getByLabel('Quantity').fill(String(fromBefore + 1))
  await page.getByRole('button', { name: 'Transfer', exact: true }).click()
  await page.getByText(`Only ${fromBefore} is in stock at that location.`).waitFor()
  await page.getByLabel('Quantity').fill('2')
  await page.getByRole('button', { name: 'Transfer', exact: true }).click()
  await delivered()
  const note = page.getByTestId('stock-adjusted')
  await note.waitFor()
  await note.getByRole('button', { name: 'About the stock figures' }).hover()
  await note.getByRole('tooltip').filter({ hasText: 'Stock was adjusted after this transfer' }).waitFor({ state: 'visible' })

  const transfer = (await rows('inventory/WarehouseTransfers')).find((t) => same(t.WarehouseFrom, source.Warehouse) && same(t.WarehouseTo, target.Warehouse))
  assert.ok(transfer, 'a warehouse transfer exists')
  assert.equal(transfer.Status, 50, 'and it was processed')
  const line = (await rows('inventory/WarehouseTransferLines')).find((l) => same(l.TransferID, transfer.TransferID))
  assert.equal(line.Quantity, 2)
  assert.ok(same(line.Item, source.Item))
  const now = await rows('sync/Inventory/StorageLocationStockPositions')
  assert.equal(stockAt(now, source.StorageLocation), fromBefore - 2)
  assert.equal(stockAt(now, target.ID), toBefore + 2)
  // the recent list reads it back from Exact Online
  await page.getByTestId('recent-transfer').filter({ hasText: source.ItemCode }).first().waitFor({ timeout: 120_000 })
  assert.deepEqual(errors, [])
})

/** A shop order in the local copy with its first routing step. */
async function shopOrderWithStep() {
  const steps = await rows('manufacturing/ShopOrderRoutingStepPlans')
  const orders = await rows('manufacturing/ShopOrders')
  for (const s of steps) {
    const o = orders.find((x) => same(x.ID, s.ShopOrder) && x.Status < 30)
    if (o) return { order: o, step: s }
  }
  throw new Error('the demo has no routing steps')
}

test('Hours: book setup hours in the week view and change them', async () => {
  const employee = (await rows('payroll/Employees'))[0]
  const { order, step } = await shopOrderWithStep()
  await page.goto(`${server.url}/hours?division=${division}`)
  await page.getByTestId('week-title').waitFor()
  await page.getByRole('button', { name: 'Book hours' }).first().click()
  const form = page.getByTestId('hour-form')
  await page.waitForFunction((id) => [...document.querySelectorAll('select[name=employee] option')].some((o) => o.value === id), employee.ID.toLowerCase(), {
    timeout: 120_000,
  })
  await form.getByLabel('Employee').selectOption(employee.ID.toLowerCase())
  await form.getByLabel('Shop order').fill(String(order.ShopOrderNumber))
  await form.getByRole('button', { name: 'Find' }).click()
  await form.getByTestId('picked-order').waitFor()
  await form.getByRole('button', { name: new RegExp(`^${step.LineNumber}\\. `) }).click()
  await form.getByRole('button', { name: 'Setup', exact: true }).click()
  await form.getByLabel('Hours', { exact: true }).fill('30')
  await form.getByRole('button', { name: 'Save' }).click()
  await form.getByText('A day has at most 24 hours.').waitFor()
  await form.getByLabel('Hours', { exact: true }).fill('1,75')
  await form.getByRole('button', { name: 'Save' }).click()
  await delivered(form)

  const booked = (await rows('manufacturing/TimeTransactions')).find(
    (t) => same(t.Employee, employee.ID) && same(t.RoutingStepPlan, step.ID) && t.Hours === 1.75,
  )
  assert.ok(booked, 'a time transaction with 1.75 hours exists')
  assert.equal(booked.Activity, 10)
  assert.ok(same(booked.ShopOrder, order.ID))

  // the week shows it; change it to 2 hours
  await form.getByRole('button', { name: 'Close' }).click()
  const entry = page.getByTestId('hour-entry').filter({ hasText: employee.FullName }).filter({ hasText: '1.75 h' })
  await entry.first().waitFor({ timeout: 120_000 })
  await entry.first().getByRole('button', { name: 'Change' }).click()
  const edit = page.getByTestId('hour-form')
  await edit.getByLabel('Hours', { exact: true }).fill('2')
  await edit.getByRole('button', { name: 'Save' }).click()
  await delivered(edit)
  const changed = (await rows('manufacturing/TimeTransactions')).find((t) => same(t.ID, booked.ID))
  assert.equal(changed.Hours, 2)
  assert.deepEqual(errors, [])
})

test('Hours: a timer a handheld kept before timers lived on the server is handed over with its start; Stop shows the hours to book', async () => {
  const employee = (await rows('payroll/Employees'))[1]
  const { order, step } = await shopOrderWithStep()
  const earlier = new Set((await rows('manufacturing/TimeTransactions')).map((t) => t.ID))
  await page.setViewportSize({ width: 390, height: 800 })
  await page.goto(`${server.url}/hours?division=${division}`)
  assert.equal(await page.getByRole('tab', { name: 'Operator' }).getAttribute('aria-selected'), 'true')
  await page.getByRole('button', { name: new RegExp(employee.FullName) }).click()
  await page.getByLabel('Shop order').fill(String(order.ShopOrderNumber))
  await page.getByLabel('Shop order').press('Enter')
  await page.getByRole('button', { name: new RegExp(`^${step.LineNumber}\\. `) }).click()
  await page.getByRole('button', { name: 'Start', exact: true }).click()
  await page.getByTestId('timer').waitFor()
  // what this browser kept before the upgrade: a timer started an hour and a half ago
  const key = `esm.hours.timers.${division}`
  const kept = {
    id: '1764100000000-ab12cd',
    employee: employee.ID.toLowerCase(),
    employeeName: employee.FullName,
    shopOrder: order.ID.toLowerCase(),
    shopOrderNumber: String(order.ShopOrderNumber),
    step: step.ID.toLowerCase(),
    stepLabel: `${step.LineNumber}. kept in the browser`,
    workCenter: step.Workcenter ?? '',
    activity: 'run',
    startedMs: Date.now() - 90 * 60_000,
  }
  await page.evaluate(({ key, kept }) => localStorage.setItem(key, JSON.stringify([kept])), { key, kept })
  await page.reload()
  await page.getByRole('button', { name: new RegExp(employee.FullName) }).click()
  const carried = page.getByTestId('timer').filter({ hasText: 'kept in the browser' })
  await carried.getByText(/^1:30:/).waitFor()
  assert.equal(await page.getByTestId('timer').count(), 2)
  assert.equal(await page.evaluate((k) => localStorage.getItem(k), key), null, 'handed over once')
  assert.ok((await api(page, '/hours/timers')).timers.some((t) => t.id === kept.id && t.startedMs === kept.startedMs))

  // the one started here: Stop, Cancel keeps it running; Remove without booking ends it
  const started = page.getByTestId('timer').filter({ hasNotText: 'kept in the browser' })
  await started.getByRole('button', { name: 'Stop' }).click()
  await started.getByRole('button', { name: 'Cancel' }).click()
  await started.getByRole('button', { name: 'Stop' }).click()
  await started.getByRole('button', { name: 'Remove without booking' }).click()
  await started.waitFor({ state: 'detached' })

  // the carried one offers its hour and a half to book
  await carried.getByRole('button', { name: 'Stop' }).click()
  assert.match(await carried.getByLabel('Hours to book').inputValue(), /^1\.5\d?$/)
  await carried.getByRole('button', { name: 'Book', exact: true }).click()
  await delivered()
  await page.getByTestId('timer').waitFor({ state: 'detached' })
  assert.deepEqual((await api(page, '/hours/timers')).timers, [])

  const booked = (await rows('manufacturing/TimeTransactions')).filter((t) => !earlier.has(t.ID))
  assert.equal(booked.length, 1, 'only the carried timer booked hours')
  assert.ok(same(booked[0].Employee, employee.ID) && same(booked[0].RoutingStepPlan, step.ID))
  assert.ok(booked[0].Hours >= 1.5 && booked[0].Hours <= 1.52, `booked ${booked[0].Hours}`)
  assert.equal(booked[0].Activity, 20)
  await page.setViewportSize({ width: 1280, height: 900 })
  assert.deepEqual(errors, [])
})
