// The Dashboard against the demo at desktop size: a chosen warehouse's stock beside the total,
// filters that survive a reload, a search by "SO <number>" and by barcode, copy buttons that
// copy codes; at handheld size the operator timer taking "SO <number>" as Scanning does; and the
// screens still working after Exact Online removed a property they show (Items.Barcode). A row's
// code opens the item page: the item, its stock and the open orders that make or sell it, in
// English and Dutch, and a plain sentence for an id the local copy has no item of.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { api, scanCode, syncedDemo, syncSettled, watchConsole } from './flows.mjs'

let server
let browser
let context
let page
let errors
let division

before(async () => {
  ;({ server, browser, context, page, errors, division } = await syncedDemo({ viewport: { width: 1440, height: 900 }, locale: 'en-GB' }))
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
})

after(async () => {
  await browser?.close()
  await server?.stop()
})

/** Waits for the Table view to settle after a change. */
async function settled() {
  const idle = () =>
    page.waitForFunction(() => {
      const c = document.querySelector('[data-testid=stock-count]')
      return c && !c.textContent.includes('…')
    })
  await idle()
  await page.waitForTimeout(400)
  await idle()
}

/** The item codes of the rows in view. */
const codes = () => page.getByTestId('stock-rows').locator('[role=row] [role=cell]:nth-child(2) a').allInnerTexts()

/** A figure as the table writes it (en-GB: "1,234.5") as a number. */
const figure = (text) => Number(/-?[\d,]+(\.\d+)?/.exec(text)?.[0].replace(/,/g, ''))

/** Every row of a local table, page by page. */
async function all(table, select) {
  const out = []
  for (let offset = 0; ; offset += 1000) {
    const rows = await api(page, `/db/${table}?select=${select}&limit=1000&offset=${offset}`)
    out.push(...rows)
    if (rows.length < 1000) return out
  }
}

/** The row of the item with exactly this code. */
const rowOf = (code) =>
  page
    .getByTestId('stock-rows')
    .locator('[role=row]')
    .filter({ has: page.locator('[role=cell]:nth-child(2) a', { hasText: new RegExp(`^${code.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`) }) })

/** Equal as the table rounds (three decimals). */
const near = (actual, expected, what) => assert.ok(Math.abs(actual - expected) < 0.001, `${what}: ${actual} vs ${expected}`)

const search = () => page.getByRole('searchbox', { name: 'Search' })

test("with a warehouse chosen, a row shows that warehouse's stock and the total beside it", async () => {
  const positions = await all('stockPositions', 'ItemId,ItemCode,CurrentStock,Warehouse')
  const byItem = new Map()
  for (const p of positions) {
    const e = byItem.get(p.ItemId) ?? { code: p.ItemCode, total: 0, warehouses: new Map() }
    e.total += p.CurrentStock
    e.warehouses.set(p.Warehouse.toLowerCase(), (e.warehouses.get(p.Warehouse.toLowerCase()) ?? 0) + p.CurrentStock)
    byItem.set(p.ItemId, e)
  }
  // an item whose stock in one warehouse differs from its total
  const [, item] = [...byItem].find(([, e]) => [...e.warehouses.values()].some((s) => s > 0 && Math.abs(s - e.total) > 0.01))
  const [warehouseId, inWarehouse] = [...item.warehouses].find(([, s]) => s > 0 && Math.abs(s - item.total) > 0.01)
  const warehouses = await api(page, '/exact/live/warehouses')
  const warehouse = warehouses.find((w) => w.ID.toLowerCase() === warehouseId)

  await page.goto(`${server.url}/dashboard?division=${division}`)
  await page.getByLabel('Warehouse').selectOption(warehouse.ID)
  await page.getByLabel('Status').selectOption('all')
  await search().fill(item.code)
  await settled()
  assert.ok((await codes()).includes(item.code), `${item.code}: ${await codes()}`)
  assert.equal(await page.getByRole('columnheader', { name: 'In warehouse' }).count(), 1)
  const row = rowOf(item.code)
  const shown = await row.getByTestId('stock-figure').innerText()
  near(figure(shown), inWarehouse, `${item.code} in warehouse ${warehouse.Code}: ${shown}`)
  near(figure(await row.getByTestId('stock-total').innerText()), item.total, 'total')
  assert.match(await row.getByTestId('stock-total').innerText(), / in total$/)

  // all warehouses again: the total alone
  await page.getByLabel('Warehouse').selectOption('')
  await settled()
  near(figure(await row.getByTestId('stock-figure').innerText()), item.total, 'total of all warehouses')
  assert.equal(await row.getByTestId('stock-total').count(), 0)
  assert.equal(await page.getByRole('columnheader', { name: 'Stock' }).count(), 1)
})

test('the filters are in the address and survive a reload', async () => {
  const warehouses = await api(page, '/exact/live/warehouses')
  const warehouse = warehouses[1] ?? warehouses[0]
  await page.goto(`${server.url}/dashboard?division=${division}`)
  await page.getByLabel('Warehouse').selectOption(warehouse.ID)
  await page.getByLabel('Status').selectOption('all')
  await search().fill('moer')
  await settled()
  await page.waitForFunction(() => new URL(location.href).searchParams.get('q') === 'moer')
  const before = await codes()
  assert.ok(before.length > 0, `'moer' in warehouse ${warehouse.Code}`)

  await page.reload()
  const url = new URL(page.url())
  assert.equal(url.searchParams.get('division'), division)
  assert.equal(url.searchParams.get('q'), 'moer')
  assert.equal(url.searchParams.get('warehouse'), warehouse.ID)
  assert.equal(url.searchParams.get('status'), 'all')
  await search().waitFor()
  assert.equal(await search().inputValue(), 'moer')
  assert.equal(await page.getByLabel('Warehouse').inputValue(), warehouse.ID)
  assert.equal(await page.getByLabel('Status').inputValue(), 'all')
  // once the list is in, the choice reads as the warehouse itself, not as "Loading…"
  await page.getByLabel('Warehouse').locator('option:checked', { hasText: warehouse.Code }).waitFor({ state: 'attached' })
  await settled()
  assert.deepEqual(await codes(), before)

  // back to the defaults: only the division stays in the address
  await page.getByLabel('Warehouse').selectOption('')
  await page.getByLabel('Status').selectOption('active')
  await search().fill('')
  await page.waitForFunction((d) => location.search === `?division=${d}`, division)
})

test('the search finds an item by "SO <number>" and by its barcode', async () => {
  await page.goto(`${server.url}/dashboard?division=${division}&status=all`)
  const [so] = await api(page, '/db/shopOrders?select=ShopOrderNumber,ItemCode&limit=1')
  await search().fill(`SO ${so.ShopOrderNumber}`)
  await settled()
  assert.ok((await codes()).includes(so.ItemCode), `SO ${so.ShopOrderNumber} → ${so.ItemCode}: ${await codes()}`)
  await page.getByText(`Shop order ${so.ShopOrderNumber}`).first().waitFor()

  const items = await all('items', 'Code,Barcode')
  const withBarcode = items.find((i) => i.Barcode && items.filter((x) => x.Barcode === i.Barcode).length === 1)
  assert.ok(withBarcode, 'the demo has items with a barcode')
  await search().fill(withBarcode.Barcode)
  await settled()
  assert.deepEqual(await codes(), [withBarcode.Code])
})

test("the search takes words in any order, and a GTIN-14 of an item's EAN", async () => {
  await page.goto(`${server.url}/dashboard?division=${division}&status=all`)
  const items = await all('items', 'Code,Description,Barcode')
  // a description of two words or more, searched back to front
  const item = items.find((i) => (i.Description ?? '').trim().split(/\s+/).length >= 2)
  assert.ok(item, 'the demo has a description of several words')
  const words = item.Description.trim().split(/\s+/)
  await search().fill([...words].reverse().join(' '))
  await settled()
  assert.ok((await codes()).includes(item.Code), `"${[...words].reverse().join(' ')}" finds ${item.Code}: ${await codes()}`)
  const withBarcode = items.find((i) => /^\d{13}$/.test(i.Barcode ?? '') && items.filter((x) => x.Barcode === i.Barcode).length === 1)
  await search().fill(`0${withBarcode.Barcode}`)
  await settled()
  assert.deepEqual(await codes(), [withBarcode.Code])
})

test('the table is ordered by a column header, either way, and the order stays in the address', async () => {
  await page.goto(`${server.url}/dashboard?division=${division}&status=all`)
  await settled()
  const header = page.getByRole('columnheader', { name: /Description/ })
  await header.getByRole('button').click()
  await page.waitForFunction(() => new URL(location.href).searchParams.get('sort') === 'description')
  await settled()
  const descriptions = async () =>
    page
      .getByTestId('stock-rows')
      .locator('[role=row]')
      .evaluateAll((rows) => rows.map((r) => r.querySelector('[role=cell]:nth-child(3)')?.textContent?.trim() ?? ''))
  // the store's own order of all items (status "all" filters nothing)
  const stored = async (order) => (await api(page, `/db/items?select=Description&order=${order}&limit=10`)).map((r) => (r.Description ?? '').trim())
  assert.equal(await header.getAttribute('aria-sort'), 'ascending')
  assert.deepEqual((await descriptions()).slice(0, 10), await stored('Description.asc,Code.asc'))
  await header.getByRole('button').click()
  await page.waitForFunction(() => new URL(location.href).searchParams.get('sort') === '-description')
  await settled()
  assert.equal(await header.getAttribute('aria-sort'), 'descending')
  assert.deepEqual((await descriptions()).slice(0, 10), await stored('Description.desc,Code.asc'))
  await page.reload()
  await settled()
  assert.equal(await page.getByRole('columnheader', { name: /Description/ }).getAttribute('aria-sort'), 'descending')
})

test("an item's copy button copies its code, not the link", async () => {
  const [code] = await codes()
  await page.getByRole('button', { name: `Copy ${code}`, exact: true }).click()
  await page
    .getByRole('status')
    .filter({ hasText: `${code} copied` })
    .waitFor()
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), code)
  assert.deepEqual(errors, [])
})

// --- the item page, opened from a row's code ---

/** An id no item of the demo has. */
const UNKNOWN = '0badc0de-0000-4000-8000-00000000dead'

const escaped = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

const normal = (text) => (text ?? '').replace(/\s+/g, ' ').trim()

/** A figure as a Dutch page writes it ("1.234,5") as a number. */
const dutchFigure = (text) => Number(/-?[\d.]+(,\d+)?/.exec(text)?.[0].replace(/\./g, '').replace(',', '.'))

/** The item as the local copy has it, with the total of its stock positions (what the Dashboard counts). */
async function itemOf(id) {
  const [item] = await api(page, `/db/items?ID=eq.${id}&select=ID,Code,Description`)
  assert.ok(item, `item ${id} is in the local copy`)
  const positions = await api(page, `/db/stockPositions?ItemId=eq.${id}&select=CurrentStock&limit=1000`)
  return { ...item, total: positions.reduce((sum, p) => sum + p.CurrentStock, 0) }
}

/** The first item (by code) with stock. */
async function itemWithStock() {
  const [position] = await api(page, '/db/stockPositions?CurrentStock=gt.0&select=ItemId&order=ItemCode.asc&limit=1')
  assert.ok(position, 'the demo has stock')
  return itemOf(position.ItemId)
}

/** Finds the item on the Dashboard by its code and clicks the code in its row. */
async function openFromDashboard(item) {
  await page.goto(`${server.url}/dashboard?division=${division}&status=all`)
  await page.getByRole('searchbox', { name: 'Search' }).fill(item.Code)
  await settled()
  await page
    .getByTestId('stock-rows')
    .locator('[role=row] [role=cell]:nth-child(2) a', { hasText: new RegExp(`^${escaped(item.Code)}$`) })
    .click()
  await page.waitForURL((url) => url.pathname === '/item')
  const url = new URL(page.url())
  assert.equal(url.searchParams.get('division'), division)
  assert.equal(url.searchParams.get('id'), item.ID)
}

test("a Dashboard row's code opens the item page: its code, description, stock and pages in Exact Online", async () => {
  const item = await itemWithStock()
  await openFromDashboard(item)
  assert.equal(await page.getByTestId('item-code').innerText(), item.Code)
  assert.equal(normal(await page.getByTestId('item-description').innerText()), normal(item.Description))
  near(figure(await page.getByTestId('item-stock-total').innerText()), item.total, `the stock of ${item.Code}`)
  assert.match(await page.getByRole('link', { name: /^Item card/ }).getAttribute('href'), /LogItemCard\.aspx\?ItemID=/)
  assert.match(await page.getByRole('link', { name: /^Inventory transactions/ }).getAttribute('href'), /LogStockTransactions\.aspx\?Item=/)
  await page.getByTestId('item-projected').waitFor()
  assert.match(await page.getByTestId('item-purchases-note').innerText(), /Purchase order lines: see Purchases/)
  assert.equal(
    await page.getByTestId('item-purchases-note').getByRole('link', { name: 'Purchases' }).getAttribute('href'),
    `/purchaseOverview?division=${division}`,
  )
  assert.deepEqual(errors, [])
})

test('an item an open shop order makes lists that order, and an item on an open sales line lists that line', async () => {
  const orders = await api(
    page,
    '/db/shopOrders?Status=in.(10,20)&select=ShopOrderNumber,Item,PlannedQuantity,ProducedQuantity&order=ShopOrderNumber.asc&limit=200',
  )
  const order = orders.find((o) => o.PlannedQuantity - (o.ProducedQuantity ?? 0) > 0)
  assert.ok(order, 'the demo has an open shop order with something left to make')
  await openFromDashboard(await itemOf(order.Item))
  const made = page.getByTestId('item-made').locator(`tr[data-ref="${order.ShopOrderNumber}"]`)
  await made.waitFor()
  near(
    figure(await made.getByTestId('order-quantity').innerText()),
    order.PlannedQuantity - (order.ProducedQuantity ?? 0),
    `still to make on ${order.ShopOrderNumber}`,
  )

  const lines = await api(page, '/db/salesOrderLines?Status=in.(12,20)&select=Item,OrderNumber,Quantity,QuantityDelivered&order=OrderNumber.asc&limit=200')
  const line = lines.find((l) => l.Quantity - (l.QuantityDelivered ?? 0) > 0)
  assert.ok(line, 'the demo has an open sales order line with something left to deliver')
  // an order may have the item on more than one line: the page lists each
  const left = lines
    .filter((l) => l.Item === line.Item && l.OrderNumber === line.OrderNumber)
    .reduce((sum, l) => sum + Math.max(0, l.Quantity - (l.QuantityDelivered ?? 0)), 0)
  await page.goto(`${server.url}/item?division=${division}&id=${line.Item}`)
  const sold = page.getByTestId('item-sold').locator(`tr[data-ref="${line.OrderNumber}"]`)
  await sold.first().waitFor()
  const shown = (await sold.getByTestId('order-quantity').allInnerTexts()).reduce((sum, text) => sum + figure(text), 0)
  near(shown, left, `still to deliver on sales order ${line.OrderNumber}`)
  assert.deepEqual(errors, [])
})

test('an id the local copy has no item of says so, with the way back to the Dashboard', async () => {
  await page.goto(`${server.url}/item?division=${division}&id=${UNKNOWN}`)
  await page.getByRole('heading', { name: 'This item is not in the local copy' }).waitFor()
  assert.equal(await page.getByTestId('item-code').count(), 0)
  await page.getByRole('link', { name: /Back to the Dashboard/ }).click()
  await page.waitForURL((url) => url.pathname === '/dashboard' && url.searchParams.get('division') === division)
  await page.getByTestId('stock-rows').waitFor()
  assert.deepEqual(errors, [])
})

test('a Dutch browser gets the page in Dutch', async () => {
  const item = await itemWithStock()
  const nl = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'nl-NL' })
  await nl.addCookies(await context.cookies())
  const p = await nl.newPage()
  const nlErrors = watchConsole(p)
  await p.goto(`${server.url}/item?division=${division}&id=${item.ID}`)
  await p.getByRole('heading', { name: 'Voorraad', exact: true }).waitFor()
  assert.equal(await p.evaluate(() => document.documentElement.lang), 'nl')
  assert.equal(await p.getByTestId('item-code').innerText(), item.Code)
  near(dutchFigure(await p.getByTestId('item-stock-total').innerText()), item.total, `the stock of ${item.Code}`)
  assert.match(await p.getByTestId('item-purchases-note').innerText(), /Inkooporderregels: zie Inkoop/)
  await p.goto(`${server.url}/item?division=${division}&id=${UNKNOWN}`)
  await p.getByRole('heading', { name: 'Dit artikel staat niet in de lokale kopie' }).waitFor()
  await p.getByRole('link', { name: /Terug naar het dashboard/ }).waitFor()
  assert.deepEqual(nlErrors, [])
  await nl.close()
})

test('at handheld size the operator timer takes "SO <number>" as Scanning does', async () => {
  const hand = await context.newPage()
  const handErrors = watchConsole(hand)
  await hand.setViewportSize({ width: 390, height: 844 })
  const [so] = await api(page, '/db/shopOrders?select=ShopOrderNumber&limit=1&offset=3')
  await hand.goto(`${server.url}/hours?division=${division}`)
  assert.equal(await hand.getByRole('tab', { name: 'Operator' }).getAttribute('aria-selected'), 'true')
  await hand.locator('section[aria-labelledby=who-title] button').first().click()
  const box = hand.getByLabel('Shop order')
  await box.fill(`SO ${so.ShopOrderNumber}`)
  await box.press('Enter')
  await hand
    .getByTestId('picked-order')
    .filter({ hasText: `Shop order ${so.ShopOrderNumber}:` })
    .waitFor()
  assert.equal(await hand.getByText('That is not a shop order number', { exact: false }).count(), 0)
  // a code that names no order is refused with the catalogue's message
  await box.fill('44-100434')
  await box.press('Enter')
  await hand.getByRole('alert').filter({ hasText: 'That is not a shop order number' }).waitFor()
  assert.deepEqual(handErrors, [])
  await hand.close()
})

/** Removes (or with `restore`, brings back) a property of one of the simulator's entity types. */
async function schema(body) {
  const res = await fetch(`${server.lines.Simulator}/_sim/schema`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  assert.ok(res.ok, `schema change: ${res.status}`)
}

test('a property Exact Online removed leaves the screens working', async () => {
  const items = await api(page, '/db/items?select=Code,Barcode&limit=300')
  const withBarcode = items.find((i) => i.Barcode)
  assert.ok(withBarcode, 'an item with a barcode')
  // Exact drops Items.Barcode without notice: every read that selects it is refused with a 400
  for (const path of ['Logistics/Items', 'sync/Logistics/Items']) await schema({ path, remove: ['Barcode'] })
  try {
    await api(page, '/sync', { method: 'POST', body: { endpoints: ['items'] } })
    await syncSettled(page)
    const sync = await api(page, '/sync')
    assert.equal(sync.tables.items?.error ?? null, null, JSON.stringify(sync.tables.items))
    const status = await api(page, '/status')
    assert.ok(
      status.droppedProperties.some((d) => d.property === 'Barcode' && /items/i.test(d.endpoint)),
      JSON.stringify(status.droppedProperties),
    )
    // the Dashboard still lists and finds items
    await page.goto(`${server.url}/dashboard?division=${division}`)
    await page.getByRole('searchbox', { name: 'Search' }).fill(withBarcode.Code)
    await settled()
    assert.deepEqual(await codes(), [withBarcode.Code])
    // and Scanning still shows the item's card
    await page.goto(`${server.url}/scanning?division=${division}`)
    await scanCode(page, withBarcode.Code)
    await page.getByTestId('item-code').getByText(withBarcode.Code, { exact: true }).waitFor({ timeout: 60_000 })
    assert.deepEqual(errors, [])
  } finally {
    for (const path of ['Logistics/Items', 'sync/Logistics/Items']) await schema({ path, restore: true })
  }
})
