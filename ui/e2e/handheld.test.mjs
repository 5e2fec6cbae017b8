// One-handed use on a handheld (390×844, a phone's user agent, touch): a compact header, the
// scanned item's facts and actions on the first screen, sync progress that covers no form, tap
// targets of at least 44 px, and Receipts where nothing moves under the finger. Against the demo.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { api, MOBILE_UA, same, scanCode, simulatorFaults, simulatorRows, syncedDemo, syncSettled } from './flows.mjs'

const VIEW = { width: 390, height: 844 }

let server
let browser
let page
let errors
let division

before(async () => {
  ;({ server, browser, page, errors, division } = await syncedDemo({ viewport: VIEW, userAgent: MOBILE_UA, hasTouch: true, isMobile: true, locale: 'en-GB' }))
})

after(async () => {
  await browser?.close()
  await server?.stop()
})

const simRows = (path) => simulatorRows(server, division, path)

const overlap = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width && a.y < b.y + b.height && b.y < a.y + a.height

async function headerHeight() {
  const box = await page.getByRole('banner').boundingBox()
  assert.ok(box, 'the header is shown')
  return box.height
}

/**
 * Visible buttons, links, form controls and checkboxes under 44 px, each described. A checkbox or
 * radio inside a label is tapped through its label, so the label's box counts.
 */
function smallTargets() {
  return page.evaluate(() => {
    const small = []
    for (const el of document.querySelectorAll('button, a[href], input, select, summary, [role=button]')) {
      const target = (el.type === 'checkbox' || el.type === 'radio') && el.closest('label') ? el.closest('label') : el
      const r = target.getBoundingClientRect()
      const style = getComputedStyle(el)
      // sr-only and hidden elements are not tapped
      if (r.width <= 1 || r.height <= 1 || style.visibility === 'hidden' || el.closest('[hidden], dialog:not([open])')) continue
      if (r.height < 44 || r.width < 44) {
        small.push(
          `${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}" ${Math.round(r.width)}×${Math.round(r.height)}`,
        )
      }
    }
    return small
  })
}

const faults = (body) => simulatorFaults(server, body)

/** The code of the item tracked by no number with the most stock positions: the longest card. */
async function longestCard() {
  const tracked = new Set((await simRows('logistics/Items')).filter((i) => i.IsSerialItem === true || i.IsBatchItem === 1).map((i) => i.Code))
  const positions = (await simRows('sync/Inventory/StorageLocationStockPositions')).filter((p) => p.Stock > 0 && !tracked.has(p.ItemCode))
  const count = new Map()
  for (const p of positions) count.set(p.ItemCode, (count.get(p.ItemCode) ?? 0) + 1)
  return [...count.entries()].sort((a, b) => b[1] - a[1])[0][0]
}

const scan = (code) => scanCode(page, code)

test('the header is one row of at most 64 px; its menu holds the screens', async () => {
  await page.goto(`${server.url}/dashboard?division=${division}`)
  await page.getByRole('banner').getByText('ESM', { exact: true }).waitFor()
  assert.ok((await headerHeight()) <= 64, `the header is ${await headerHeight()} px`)
  const logout = await page.getByRole('button', { name: 'Logout' }).boundingBox()
  assert.ok(logout.height >= 44 && logout.width >= 44, `Logout is ${logout.width}×${logout.height}`)
  await page.getByRole('banner').getByRole('button', { name: 'Menu' }).tap()
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Receipts' }).tap()
  await page.waitForURL(/\/receipts\?division=/)
  await page.getByTestId('receipt-count').waitFor({ timeout: 120_000 })
  assert.equal(await page.getByRole('navigation', { name: 'Main' }).count(), 0, 'the menu closed on the way')
  assert.ok((await headerHeight()) <= 64)
})

test('Scanning: after a scan the item, its stock and the actions are on the first screen; all targets 44 px', async () => {
  const code = await longestCard()
  await page.goto(`${server.url}/scanning?division=${division}`)
  await page.locator('#scan-input').waitFor()
  assert.ok((await headerHeight()) <= 64)
  await scan(code)
  await page.getByTestId('item-card').waitFor()
  await page.waitForFunction(() => /\d/.test(document.querySelector('[data-testid=item-total]')?.textContent ?? ''))
  assert.equal(await page.evaluate(() => window.scrollY), 0, 'nothing scrolled')
  const issue = await page.getByRole('group', { name: 'Actions' }).getByRole('button', { name: 'Issue', exact: true }).boundingBox()
  const total = await page.getByTestId('item-total').boundingBox()
  const label = await page.getByRole('group', { name: 'Actions' }).getByRole('button', { name: 'Label', exact: true }).boundingBox()
  for (const [what, box] of [
    ['Issue', issue],
    ['the total stock', total],
    ['Label', label],
  ]) {
    assert.ok(box.y >= 0 && box.y + box.height <= VIEW.height, `${what} ends at ${Math.round(box.y + box.height)} px, below the first screen`)
  }
  assert.deepEqual(await smallTargets(), [])

  // each panel opens right below the actions, and keeps the 44 px targets
  const actions = page.getByRole('group', { name: 'Actions' })
  for (const name of ['Issue', 'Receive', 'Transfer', 'Count', 'Label']) {
    await actions.getByRole('button', { name, exact: true }).tap()
    const group = await actions.boundingBox()
    const panel = await page.locator('[role=group][aria-label=Actions] + *').boundingBox()
    assert.ok(
      panel.y >= group.y + group.height && panel.y - (group.y + group.height) <= 16,
      `${name}'s panel starts ${Math.round(panel.y - group.y - group.height)} px below the actions`,
    )
    await page.waitForTimeout(300)
    assert.deepEqual(await smallTargets(), [], `with ${name} open`)
  }
  assert.deepEqual(errors, [])
})

test('every handheld form holds its submit and the booking’s result on the first screen', async () => {
  const code = await longestCard()
  await page.goto(`${server.url}/scanning?division=${division}`)
  await page.locator('#scan-input').waitFor()
  await scan(code)
  await page.getByTestId('item-card').waitFor()
  const actions = page.getByRole('group', { name: 'Actions' })
  const onFirstScreen = async (what, locator) => {
    const box = await locator.boundingBox()
    assert.ok(box && box.y >= 0 && box.y + box.height <= VIEW.height, `${what} at ${JSON.stringify(box)}, below the first screen`)
  }
  for (const [name, submit] of [
    ['Issue', 'Issue'],
    ['Transfer', 'Transfer'],
    ['Count', 'Save the count'],
  ]) {
    await actions.getByRole('button', { name, exact: true }).tap()
    const bar = page.getByTestId('submit-bar')
    await bar.waitFor()
    await onFirstScreen(`${name}'s ${submit} button`, bar.getByRole('button', { name: submit, exact: true }))
  }
  // the count's result shows in the bar, on the first screen: counted as it stands, nothing changes
  const where = page.locator('#count-where')
  const location = await where.locator('option').nth(1).getAttribute('value')
  await where.selectOption(location)
  const stock = (await simRows('sync/Inventory/StorageLocationStockPositions')).find((p) => p.ItemCode === code && same(p.StorageLocation, location))
  const expected = stock?.Stock ?? 0
  // a count far off what is expected shows the difference and asks first, on the first screen
  const far = expected * 2 + 5
  await page.locator('#count-qty').fill(String(far))
  const fmt = (n) => Number(n).toLocaleString('en-GB', { maximumFractionDigits: 3 })
  await page
    .getByTestId('count-difference')
    .filter({ hasText: `Expected ${fmt(expected)} · counted ${fmt(far)} · difference +${fmt(far - expected)}` })
    .waitFor()
  await page.getByTestId('submit-bar').getByRole('button', { name: 'Save the count', exact: true }).tap()
  const ask = page.getByRole('alertdialog')
  await ask.waitFor()
  assert.match(await ask.innerText(), new RegExp(`a difference of \\+${fmt(far - expected).replace(/[.,]/g, '.')}\\. Save the count anyway`))
  await onFirstScreen('Save anyway', ask.getByRole('button', { name: 'Save anyway' }))
  await ask.getByRole('button', { name: 'Change the quantity' }).tap()
  await ask.waitFor({ state: 'detached' })
  assert.equal(await page.getByTestId('write-status').count(), 0, 'nothing saved')
  await page.locator('#count-qty').fill(String(expected))
  await page.getByTestId('submit-bar').getByRole('button', { name: 'Save the count', exact: true }).tap()
  const result = page.getByTestId('submit-bar').getByTestId('write-status')
  await result.waitFor({ timeout: 60_000 })
  await onFirstScreen('the count’s result', result)
  assert.deepEqual(errors, [])
})

test('during a sync the progress sits in the header: it covers no form and takes no focus', async () => {
  await page.goto(`${server.url}/scanning?division=${division}`)
  await scan(await longestCard())
  await page.getByRole('group', { name: 'Actions' }).getByRole('button', { name: 'Issue', exact: true }).tap()
  const qty = page.locator('#issue-qty')
  await qty.focus()
  const form = await page.locator('form:has(#issue-qty)').boundingBox()
  // a slow Exact Online keeps the sync and its progress going for a while
  await faults({ latency_ms: 600 })
  try {
    await api(page, '/sync', { method: 'POST', body: {} })
    const summary = page.getByTestId('sync-summary')
    await summary.waitFor({ timeout: 60_000 })
    assert.ok((await headerHeight()) <= 64)
    // a tap shows the tables in progress over the page, and another tap hides them again (first,
    // while most tables are still to come: on a busy machine the last ones may end mid-tap)
    await summary.tap()
    await page
      .getByRole('list', { name: 'Sync progress' })
      .getByText(/^Refreshing /)
      .first()
      .waitFor()
    await summary.tap()
    await page.getByRole('list', { name: 'Sync progress' }).waitFor({ state: 'detached' })
    await qty.focus()
    // updates come every second: the progress stays in the header and the focus where it was
    for (let i = 0; i < 4; i++) {
      const boxes = await page.evaluate(() =>
        [...document.querySelectorAll('[data-testid=sync-summary], ul[aria-label="Sync progress"]')].map((el) => el.getBoundingClientRect().toJSON()),
      )
      assert.ok(boxes.length > 0, 'the sync is still running')
      for (const box of boxes) assert.ok(!overlap(box, form), `sync progress ${JSON.stringify(box)} covers the Issue form ${JSON.stringify(form)}`)
      assert.equal(await page.evaluate(() => document.activeElement?.id), 'issue-qty', 'the quantity keeps the focus')
      await page.waitForTimeout(1_000)
    }
  } finally {
    await faults({})
  }
  await syncSettled(page, 300_000)
  assert.deepEqual(errors, [])
})

/** An open purchase order line whose item has another open line: its code alone matches both. */
async function openLines() {
  const orders = (await simRows('purchaseorder/PurchaseOrders')).filter((o) => o.ReceiptStatus < 30)
  const lines = (await simRows('purchaseorder/PurchaseOrderLines')).filter(
    (l) => l.Quantity - l.ReceivedQuantity >= 1 && !/ZV/.test(l.ItemCode) && orders.some((o) => same(o.PurchaseOrderID, l.PurchaseOrderID)),
  )
  const line = lines.find((l) => lines.filter((m) => m.ItemCode === l.ItemCode).length === 2)
  assert.ok(line, 'the demo has an item on two open purchase order lines')
  const other = lines.find((m) => m.ItemCode === line.ItemCode && m !== line)
  const orderOf = (l) => orders.find((o) => same(o.PurchaseOrderID, l.PurchaseOrderID))
  return { line, order: orderOf(line), other: orderOf(other) }
}

test('Receive goods: the first tap after a scan and Enter ticks the line and moves no other; the receipt just made shows its number, supplier, warehouse and PO', async () => {
  const { line, order, other } = await openLines()
  await page.goto(`${server.url}/receipts?division=${division}`)
  await page.getByTestId('receipt-count').waitFor({ timeout: 120_000 })
  await page.getByRole('button', { name: 'Receive goods' }).tap()
  const dialog = page.getByRole('dialog')
  await dialog.getByTestId('open-line-count').waitFor({ timeout: 120_000 })
  assert.deepEqual(await smallTargets(), [], 'in Receive goods')
  // a keyboard-wedge scan of the item's code: two lines match, so Enter picks neither
  await dialog.getByLabel('Scan or search').focus()
  await page.keyboard.type(line.ItemCode)
  await page.keyboard.press('Enter')
  await dialog.getByTestId('open-line-count').filter({ hasText: 'Showing 2 of 2' }).waitFor()
  const row = dialog.getByTestId('open-line').filter({ hasText: `PO ${order.OrderNumber} ` })
  const next = dialog
    .getByTestId('open-line')
    .filter({ hasText: `PO ${other.OrderNumber} ` })
    .getByRole('checkbox')
  const before = await next.boundingBox()
  await row.getByRole('checkbox').tap()
  assert.ok(await row.getByRole('checkbox').isChecked(), 'the first tap ticked the line')
  // its quantity and location opened beside it: the other line stayed under the finger
  await row.getByLabel('Quantity received').waitFor()
  assert.deepEqual(await next.boundingBox(), before, 'the other line did not move')
  assert.deepEqual(await smallTargets(), [], 'with a line ticked')
  await row.getByLabel('Quantity received').fill('1')
  await dialog.getByRole('button', { name: /Receive 1 line/ }).tap()
  const status = dialog.getByTestId('write-status').first()
  await status.waitFor()
  await page.waitForFunction(() => ['delivered', 'failed'].includes(document.querySelector('[data-testid=write-status]')?.getAttribute('data-state')), null, {
    timeout: 120_000,
  })
  assert.equal(await status.getAttribute('data-state'), 'delivered', await status.innerText())
  await dialog.getByRole('button', { name: 'Close' }).tap()

  // Exact's receipt of this order line: the newest one
  const received = (await simRows('purchaseorder/GoodsReceiptLines')).filter((l) => same(l.PurchaseOrderLineID, line.ID))
  const receipt = (await simRows('purchaseorder/GoodsReceipts'))
    .filter((r) => received.some((l) => same(l.GoodsReceiptID, r.ID)))
    .sort((a, b) => b.ReceiptNumber - a.ReceiptNumber)[0]
  assert.ok(receipt, 'Exact has the receipt')
  const card = page.getByTestId('receipt').filter({ hasText: `Receipt ${receipt.ReceiptNumber}` })
  await card.waitFor({ timeout: 120_000 })
  // the receipts come first, their lines after them
  await card.getByText(`PO ${order.OrderNumber}`).first().waitFor({ timeout: 120_000 })
  const text = await card.innerText()
  assert.ok(text.includes(order.SupplierName), `the supplier ${order.SupplierName} in ${text}`)
  assert.ok(text.includes(`Warehouse ${order.WarehouseCode}`), `the warehouse ${order.WarehouseCode} in ${text}`)
  assert.ok(text.includes(`PO ${order.OrderNumber}`), `the order ${order.OrderNumber} in ${text}`)
  assert.ok(receipt.ReceiptDate, 'Exact dated the receipt')
  assert.notEqual((await card.locator('header > span').nth(1).innerText()).trim(), '–', 'the list shows its date')
  assert.deepEqual(errors, [])
})

test('Receipts: ticking a line for labels moves no other line; all targets 44 px', async () => {
  await page.goto(`${server.url}/receipts?division=${division}`)
  await page.getByTestId('receipt-count').waitFor({ timeout: 120_000 })
  const boxes = page.getByRole('checkbox', { name: /^Pick .* for labels$/ })
  await boxes.nth(2).waitFor()
  assert.deepEqual(await smallTargets(), [])
  // a scan into the search box, Enter, then the first tap
  await page.getByLabel('Search receipts').focus()
  await page.keyboard.type('0')
  await page.keyboard.press('Enter')
  await boxes.nth(2).waitFor()
  const before = await boxes.nth(1).boundingBox()
  await boxes.nth(0).tap()
  assert.ok(await boxes.nth(0).isChecked(), 'the first tap ticked the line')
  await page.getByTestId('print-panel').waitFor()
  assert.deepEqual(await boxes.nth(1).boundingBox(), before, 'the next line stayed under the finger')
  await boxes.nth(1).tap()
  assert.ok(await boxes.nth(1).isChecked())
  await page.waitForFunction(() => !document.querySelector('[data-testid=needed-by]')?.textContent.includes('Looking'))
  assert.deepEqual(await smallTargets(), [], 'with the labels panel open')
  assert.deepEqual(errors, [])
})
