// Materials and Purchases against the demo: a material the simulator's own rows say is short
// shows short from the right day with its lines, and a supplier's open purchase order lines
// (and the late ones) match the simulator's.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { activate, api, signIn, simulatorRows, syncSettled, watchConsole } from './flows.mjs'
import { launchBrowser, startServer } from './server.mjs'

let server
let browser
let page
let errors
let division

before(async () => {
  server = await startServer('demo')
  browser = await launchBrowser()
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'en-GB' })
  page = await context.newPage()
  errors = watchConsole(page)
})

after(async () => {
  await browser?.close()
  await server?.stop()
})

/** Rows of a provider path as the simulator holds them now. */
const simRows = (path) => simulatorRows(server, division, path)

const num = (v) => (Number.isFinite(Number(v)) ? Number(v) : 0)
const id = (v) => String(v ?? '').toLowerCase()
/** `/Date(ms)/` as the UTC calendar day, as the provider's date-only values are meant. */
const day = (v) => {
  const m = /\/Date\((-?\d+)\)\//.exec(String(v ?? ''))
  return m ? new Date(Number(m[1])).toISOString().slice(0, 10) : null
}
const localToday = () => {
  const d = new Date()
  const p = (n) => String(n).padStart(2, '0')
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`
}

/** Open purchase order lines per the simulator: orders not (fully) received, lines with goods to come. */
async function simOpenPurchaseLines() {
  const headers = new Map(
    (await simRows('purchaseorder/PurchaseOrders')).filter((h) => [10, 20].includes(num(h.ReceiptStatus))).map((h) => [id(h.PurchaseOrderID ?? h.ID), h]),
  )
  return (await simRows('purchaseorder/PurchaseOrderLines'))
    .filter((l) => headers.has(id(l.PurchaseOrderID)) && num(l.Quantity) > num(l.ReceivedQuantity))
    .map((l) => ({ ...l, header: headers.get(id(l.PurchaseOrderID)) }))
}

test('sign in, activate and sync the demo', async () => {
  await signIn(page, server.url)
  await activate(page, server.url, server.lines['Licence code'])
  division = new URL(page.url()).searchParams.get('division')
  await api(page, '/sync', { method: 'POST', body: {} })
  // a shared, busy machine can take minutes over the first full sync
  await syncSettled(page, 300_000)
})

test('Materials: a material without stock or supply is short from its first requirement, with its lines', async () => {
  // what the simulator says: requirements of open shop orders and sales orders
  const shopOrders = await simRows('manufacturing/ShopOrders')
  const openSo = new Map(shopOrders.filter((s) => [10, 20].includes(num(s.Status))).map((s) => [id(s.ID), s]))
  const demand = new Map()
  const add = (item, line) => {
    if (!demand.has(item)) demand.set(item, [])
    demand.get(item).push(line)
  }
  // the details view carries IssuedQuantity (the plans view does not)
  for (const p of await simRows('manufacturing/ShopOrderMaterialPlanDetails')) {
    const so = openSo.get(id(p.ShopOrder))
    const left = num(p.PlannedQuantity) - num(p.IssuedQuantity)
    if (so && num(p.Type) === 1 && [10, 12, 20, 25].includes(num(p.Status)) && left > 0)
      add(id(p.Item), { kind: 'MS', ref: String(so.ShopOrderNumber), day: day(p.PlannedDate), qty: left })
  }
  for (const l of await simRows('salesorder/SalesOrderLines')) {
    const left = num(l.Quantity) - num(l.QuantityDelivered)
    if ([12, 20].includes(num(l.Status)) && left > 0) add(id(l.Item), { kind: 'SO', ref: String(l.OrderNumber), day: day(l.DeliveryDate), qty: left })
  }
  // ... and the materials with no free stock anywhere and nothing on its way
  const stock = new Map()
  for (const s of await simRows('sync/Inventory/StockPositions')) stock.set(id(s.ItemId), (stock.get(id(s.ItemId)) ?? 0) + num(s.FreeStock))
  const openPo = await simOpenPurchaseLines()
  const incoming = new Set(openPo.map((l) => id(l.Item)))
  for (const s of openSo.values()) if (num(s.PlannedQuantity) > num(s.ProducedQuantity)) incoming.add(id(s.Item))
  const items = new Map((await simRows('logistics/Items')).map((i) => [id(i.ID), i]))
  const candidates = [...demand.keys()].filter((i) => !(stock.get(i) > 0) && !incoming.has(i) && items.has(i))
  assert.ok(candidates.length > 0, 'the demo has a material without stock or supply')
  const itemId = candidates.sort()[0]
  const code = items.get(itemId).Code.trim()
  const lines = demand.get(itemId)
  const firstDay = lines.map((l) => l.day).sort()[0]

  await page.goto(`${server.url}/materials?division=${division}`)
  await page.getByTestId('materials-summary').waitFor({ timeout: 60_000 })
  await page.getByRole('heading', { name: 'Material shortages' }).waitFor()
  await page.getByLabel('Search', { exact: true }).fill(code)
  const row = page.locator(`[data-testid=material-row][data-item="${code}"]`)
  await row.waitFor()
  assert.equal(await row.getAttribute('data-availability'), 'short')
  assert.equal(await row.getAttribute('data-first-short'), firstDay, 'short from its first requirement')
  const shown = await row.getByTestId('first-short').innerText()
  assert.equal(
    shown,
    new Date(firstDay + 'T00:00:00Z').toLocaleDateString('en-GB', { timeZone: 'UTC', weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' }),
  )
  assert.ok(await row.getByRole('link', { name: 'Create purchase order' }).isVisible())

  // drill-down: exactly its requirement lines, the balance running down to minus their sum
  await row.getByRole('button', { name: `Show lines of ${code}` }).click()
  const table = row.getByTestId('material-lines')
  const shownLines = await table.locator('tbody tr').evaluateAll((trs) => trs.map((tr) => `${tr.dataset.kind} ${tr.dataset.ref} ${tr.dataset.day}`))
  assert.deepEqual(shownLines.sort(), lines.map((l) => `${l.kind} ${l.ref} ${l.day}`).sort())
  const balances = await table.getByTestId('line-balance').allInnerTexts()
  const total = lines.reduce((s, l) => s + l.qty, 0)
  assert.equal(Number(balances.at(-1).replace(/,/g, '')), -total, `${balances} for ${JSON.stringify(lines)}`)
  // the abbreviation's tooltip
  await table.locator('tbody [data-kind]').first().locator('span[tabindex]').focus()
  await page.getByRole('tooltip', { name: /material a shop order still needs|sales order line still to be delivered/ }).waitFor()

  // a material in demand with purchase orders on their way: each open line is in its drill-down
  const withPo = [...demand.keys()].filter((i) => items.has(i) && openPo.some((l) => id(l.Item) === i)).sort()[0]
  assert.ok(withPo, 'the demo has a material in demand with an open purchase order')
  const poCode = items.get(withPo).Code.trim()
  await page.getByLabel('Show', { exact: true }).selectOption('all')
  await page.getByLabel('Search', { exact: true }).fill(poCode)
  const poRow = page.locator(`[data-testid=material-row][data-item="${poCode}"]`)
  await poRow.getByRole('button', { name: `Show lines of ${poCode}` }).click()
  const poLines = await poRow.locator('tbody tr[data-kind=PO]').evaluateAll((trs) => trs.map((tr) => `${tr.dataset.ref} ${tr.dataset.day}`))
  const expected = openPo.filter((l) => id(l.Item) === withPo).map((l) => `${l.header.OrderNumber} ${day(l.ReceiptDate) ?? day(l.header.ReceiptDate)}`)
  assert.deepEqual(poLines.sort(), expected.sort())
})

test('Materials: a sales order line delivered from stock is re-dated in Exact Online', async () => {
  // an open line of one order and item that no shop order makes: Planning never shows it
  // the sync stream carries the line's Status (the regular endpoint has only OrderStatus)
  const all = await simRows('sync/SalesOrder/SalesOrderLines')
  const items = new Map((await simRows('logistics/Items')).map((i) => [id(i.ID), i]))
  const line = all.find(
    (l) =>
      !l.ShopOrder &&
      [12, 20].includes(num(l.Status)) &&
      num(l.Quantity) > num(l.QuantityDelivered) &&
      day(l.DeliveryDate) &&
      items.has(id(l.Item)) &&
      all.filter((x) => x.OrderNumber === l.OrderNumber && id(x.Item) === id(l.Item)).length === 1,
  )
  assert.ok(line, 'the demo has an open sales order line delivered from stock')
  const code = items.get(id(line.Item)).Code.trim()
  const moved = new Date(Date.parse(day(line.DeliveryDate) + 'T00:00:00Z') + 7 * 86_400_000).toISOString().slice(0, 10)

  await page.goto(`${server.url}/materials?division=${division}`)
  await page.getByTestId('materials-summary').waitFor({ timeout: 60_000 })
  await page.getByLabel('Show', { exact: true }).selectOption('all')
  await page.getByLabel('Search', { exact: true }).fill(code)
  const row = page.locator(`[data-testid=material-row][data-item="${code}"]`)
  await row.getByRole('button', { name: `Show lines of ${code}` }).click()
  const so = row.locator(`tbody tr[data-kind=SO][data-ref="${line.OrderNumber}"]`)
  await so.getByRole('button', { name: 'Move delivery date' }).click()
  await so.getByLabel(`Delivery date of Sales order ${line.OrderNumber}`).fill(moved)
  await so.getByRole('button', { name: 'Save date' }).click()
  const status = so.getByTestId('write-status')
  await page.waitForFunction(
    (ref) =>
      ['delivered', 'failed'].includes(document.querySelector(`tr[data-kind=SO][data-ref="${ref}"] [data-testid=write-status]`)?.getAttribute('data-state')),
    String(line.OrderNumber),
    { timeout: 120_000 },
  )
  assert.equal(await status.getAttribute('data-state'), 'delivered', await status.innerText())
  const after = (await simRows('salesorder/SalesOrderLines')).find((l) => id(l.ID) === id(line.ID))
  assert.equal(day(after.DeliveryDate), moved)
})

test("Purchases: a supplier's open lines and late ones match the simulator", async () => {
  const open = await simOpenPurchaseLines()
  const bySupplier = new Map()
  for (const l of open) bySupplier.set(id(l.header.Supplier), [...(bySupplier.get(id(l.header.Supplier)) ?? []), l])
  const [supplier, lines] = [...bySupplier.entries()].sort((a, b) => b[1].length - a[1].length)[0]
  const today = localToday()
  const late = lines.filter((l) => (day(l.ReceiptDate) ?? day(l.header.ReceiptDate)) < today).length
  assert.ok(late > 0 && late < lines.length, 'the busiest supplier has late and on-time lines')

  await page.getByRole('navigation').getByRole('link', { name: 'Purchases' }).click()
  await page.waitForURL(/\/purchaseOverview\?division=/)
  await page.getByTestId('purchases-summary').waitFor({ timeout: 60_000 })
  // the list is virtualised: it says how many lines and groups it holds, and renders those near the window
  const list = page.getByTestId('purchase-list')
  assert.equal(Number(await list.getAttribute('data-lines')), open.length, 'every open line of every supplier')
  const rendered = await page.getByTestId('purchase-line').count()
  assert.ok(rendered > 0 && (open.length < 60 || rendered < open.length), `only the rows near the window are in the page: ${rendered} of ${open.length}`)

  await page.getByLabel('Supplier', { exact: true }).selectOption(supplier)
  await page.waitForFunction((n) => document.querySelector('[data-testid=purchase-list]')?.getAttribute('data-lines') === String(n), lines.length)
  assert.match(await page.getByTestId('purchases-summary').innerText(), new RegExp(`^${lines.length} open lines on \\d+ orders, ${late} late$`))
  // every line of the supplier, met by scrolling through the list: the late ones marked
  const seen = await linesByScrolling(page)
  assert.equal(seen.size, lines.length)
  assert.equal([...seen.values()].filter((l) => l.late).length, late)
  assert.ok(
    [...seen.values()].every((l) => !l.late || l.badge),
    'a late line carries its badge',
  )
  const orderLinks = await page.getByTestId('purchase-line').getByRole('link', { name: /^\d+/ }).first().getAttribute('href')
  assert.match(orderLinks, /PurPurchaseOrder\.aspx\?ID=%7B[0-9a-f-]+%7D&_Division_=\d+/)

  // grouped by item: one group per item of the supplier's open lines, every line still shown
  await page.getByLabel('Group by', { exact: true }).selectOption('item')
  const itemsOfSupplier = new Set(lines.map((l) => id(l.Item))).size
  await page.waitForFunction((n) => document.querySelector('[data-testid=purchase-list]')?.getAttribute('data-groups') === String(n), itemsOfSupplier)
  assert.equal((await linesByScrolling(page)).size, lines.length)

  await page.getByLabel('Only late lines').check()
  await page.waitForFunction((n) => document.querySelector('[data-testid=purchase-list]')?.getAttribute('data-lines') === String(n), late)
  assert.equal((await linesByScrolling(page)).size, late)
})

test('Purchases: a line received in full leaves the list once its receipt is synced back, without a reload', async () => {
  await page.goto(`${server.url}/purchaseOverview?division=${division}`)
  const list = page.getByTestId('purchase-list')
  await list.waitFor({ timeout: 60_000 })
  const before = Number(await list.getAttribute('data-lines'))
  // an untracked item: a serial or batch one is received with its numbers, not the point here
  const tracked = new Set((await simRows('logistics/Items')).filter((i) => i.IsSerialItem === true || num(i.IsBatchItem) === 1).map((i) => id(i.ID)))
  const line = (await simOpenPurchaseLines()).find((l) => !tracked.has(id(l.Item)))
  assert.ok(line, 'the demo has an open line of an untracked item')
  const write = await page.request.post(new URL('/api/v1/exact/createGoodsReceipt?wait=10', server.url).href, {
    data: { GoodsReceiptLines: [{ PurchaseOrderLineID: line.ID, QuantityReceived: num(line.Quantity) - num(line.ReceivedQuantity) }] },
  })
  assert.equal(write.status(), 200, await write.text())
  // the outbox's refresh syncs the purchase orders; its end reads the local copy again
  await page.waitForFunction((n) => document.querySelector('[data-testid=purchase-list]')?.getAttribute('data-lines') === String(n), before - 1, {
    timeout: 60_000,
  })
  // and the office can ask Exact Online for the newest orders itself
  await page.getByRole('button', { name: 'Refresh from Exact Online' }).click()
  await page.getByText(/^(Sync started\.|A sync is already running\.)$/).waitFor()
})

/** The purchase lines met while scrolling the window from top to bottom, by line id. */
async function linesByScrolling(page) {
  const seen = new Map()
  await page.evaluate(() => window.scrollTo(0, 0))
  for (;;) {
    for (const l of await page.$$eval('[data-testid=purchase-line]', (rows) =>
      rows.map((r) => ({ key: r.dataset.line, late: r.dataset.late === 'true', badge: !!r.querySelector('[data-testid=late-badge]') })),
    ))
      seen.set(l.key, l)
    const done = await page.evaluate(() => window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2)
    if (done) break
    await page.evaluate(() => window.scrollBy(0, window.innerHeight * 0.8))
    await page.waitForTimeout(50)
  }
  await page.evaluate(() => window.scrollTo(0, 0))
  return seen
}

test('on a handheld the Materials list keeps big touch targets', async () => {
  const small = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-GB', storageState: await page.context().storageState() })
  const p = await small.newPage()
  const narrowErrors = watchConsole(p)
  await p.goto(`${server.url}/materials?division=${division}`)
  const button = p
    .getByTestId('material-row')
    .first()
    .getByRole('button', { name: /^Show lines of/ })
  await button.waitFor()
  const box = await button.boundingBox()
  assert.ok(box.height >= 44, `Lines button is ${box.height} px high`)
  assert.ok(box.x + box.width <= 390, 'it fits the screen')
  await button.click()
  await p.getByTestId('material-lines').first().waitFor()
  assert.ok(await p.evaluate(() => document.documentElement.scrollWidth <= 390), 'the drill-down does not widen the page')
  await small.close()
  assert.deepEqual(narrowErrors, [])
})

test('no console errors', () => {
  assert.deepEqual(errors, [])
})
