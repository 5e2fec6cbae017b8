// A handheld (390×844) in a Wi-Fi dead spot: the app reloads without the server, a scan shows the
// item from the catalogue kept on the device, three material issues booked there wait on the
// device ("3 waiting to send"), also after the page was closed and opened again, and once the
// server can be reached they are sent in order: Exact Online holds exactly three, once each.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { api, MOBILE_UA, same, scanCode, simulatorRows, syncedDemo, waitFor } from './flows.mjs'

const VIEW = { width: 390, height: 844 }

let server
let browser
let context
let page
let division
let pick
/** Issues of the picked plan line at the simulator before the test. */
let baseline

/** The records of a store in the app's offline database, read in the page. */
const offlineRecords = (p, store) =>
  p.evaluate(
    (name) =>
      new Promise((resolve) => {
        const req = indexedDB.open('esm-offline')
        req.onsuccess = () => {
          const db = req.result
          if (!db.objectStoreNames.contains(name)) return resolve([])
          const all = db.transaction(name, 'readonly').objectStore(name).getAll()
          all.onsuccess = () => resolve(all.result)
          all.onerror = () => resolve([])
        }
        req.onerror = () => resolve([])
      }),
    store,
  )

const issuesOfPick = async () =>
  (await simulatorRows(server, division, 'manufacturing/MaterialIssues')).filter((m) => same(m.ShopOrderMaterialPlan, pick.plan.ID))

before(async () => {
  ;({ server, browser, context, page, division } = await syncedDemo({ viewport: VIEW, userAgent: MOBILE_UA, hasTouch: true, isMobile: true, locale: 'en-GB' }))
  const [stock, plans, orders, items] = await Promise.all([
    simulatorRows(server, division, 'sync/Inventory/StorageLocationStockPositions'),
    simulatorRows(server, division, 'manufacturing/ShopOrderMaterialPlanDetails'),
    simulatorRows(server, division, 'manufacturing/ShopOrders'),
    simulatorRows(server, division, 'logistics/Items'),
  ])
  const open = new Map(orders.filter((o) => o.Status === 10 || o.Status === 20).map((o) => [o.ID, o]))
  const byId = new Map(items.map((i) => [i.ID, i]))
  for (const plan of plans) {
    const order = open.get(plan.ShopOrder)
    const item = byId.get(plan.Item)
    // enough in stock and still to issue that three issues of one ask no confirmation
    if (plan.Type !== 1 || !order || !item || plan.PlannedQuantity - (plan.IssuedQuantity ?? 0) < 3) continue
    // a serial or batch item asks for its numbers, which this flow does not give
    if (item.IsSerialItem === true || item.IsBatchItem === 1 || item.IsBatchItem === true) continue
    // at a storage location of the order's warehouse: Exact refuses an issue from another one
    if (!stock.some((s) => s.Item === plan.Item && s.Stock >= 3 && s.StorageLocation && same(s.Warehouse, order.Warehouse))) continue
    pick = { item, plan, order }
    break
  }
  assert.ok(pick, 'the demo has an item in stock that an open shop order still needs three of')
  baseline = (await issuesOfPick()).length
})

after(async () => {
  await browser?.close()
  await server?.stop()
})

const scan = (code) => scanCode(page, code)
const fmt = (n) => Number(n).toLocaleString('en-GB', { maximumFractionDigits: 3 })

test('online once: the service worker keeps the app and the catalogue is kept on the device', async () => {
  await page.goto(`${server.url}/scanning?division=${division}`)
  await page.locator('#scan-input').waitFor()
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 60_000 })
  await waitFor(async () => (await offlineRecords(page, 'catalogue')).length > 0, 'the scan catalogue in IndexedDB', 60_000)
})

test('offline: the app reloads, a scan shows the item as of the catalogue, three issues wait on the device', async () => {
  await context.setOffline(true)
  const res = await page.reload()
  assert.ok(res?.fromServiceWorker(), 'the page came from the service worker')
  await page.getByTestId('offline').waitFor({ timeout: 30_000 })
  await page.locator('#scan-input').waitFor({ timeout: 30_000 })

  await scan(pick.item.Code)
  const card = page.getByTestId('item-card')
  await card.waitFor({ timeout: 30_000 })
  assert.match(await card.innerText(), new RegExp(pick.item.Code))
  await page.getByTestId('as-of').first().waitFor()

  await page.getByRole('group', { name: 'Actions' }).getByRole('button', { name: 'Issue', exact: true }).tap()
  await page
    .getByRole('radio', { name: new RegExp(`SO ${pick.order.ShopOrderNumber} `) })
    .first()
    .check()
  await page.locator('#issue-qty').fill('1')
  for (let n = 1; n <= 3; n++) {
    await page.getByRole('form', { name: 'Issue to a shop order' }).getByRole('button', { name: 'Issue', exact: true }).tap()
    await page.getByTestId('waiting-count').getByText(`${n} waiting to send`).waitFor({ timeout: 30_000 })
  }
  // what the line still needs counts the three kept here
  const left = pick.plan.PlannedQuantity - (pick.plan.IssuedQuantity ?? 0)
  await page
    .getByText(`${fmt(left - 3)} still to issue (3 of it booked, waiting for Exact Online)`)
    .first()
    .waitFor()
  // and the card's stock leaves them out, saying so
  await page
    .getByTestId('item-waiting')
    .filter({ hasText: /^after 3 .*issued here, not yet booked in Exact Online$/ })
    .waitFor()
  const state = page.getByTestId('write-status')
  assert.equal(await state.getAttribute('data-state'), 'kept')
  assert.match(await state.innerText(), /Kept on this device/)
  assert.doesNotMatch(await page.locator('body').innerText(), /Failed to fetch/)
  assert.equal((await offlineRecords(page, 'bookings')).length, 3)
})

test('closed and opened again offline: the three still wait, with what they are', async () => {
  await page.close()
  page = await context.newPage()
  await page.goto(`${server.url}/scanning?division=${division}`)
  await page.locator('#scan-input').waitFor({ timeout: 30_000 })
  await page.getByTestId('waiting-count').getByText('3 waiting to send').waitFor({ timeout: 30_000 })
  await page.getByTestId('waiting-count').tap()
  const rows = page.getByTestId('waiting-booking')
  assert.equal(await rows.count(), 3)
  for (const text of await rows.allInnerTexts()) {
    assert.ok(text.includes(`Issue 1`) && text.includes(pick.item.Code) && text.includes(`shop order ${pick.order.ShopOrderNumber}`), text)
  }
  assert.equal((await issuesOfPick()).length, baseline, 'nothing reached Exact Online while offline')
})

test('back online they are sent by themselves: Exact Online holds exactly three, once each', async () => {
  await context.setOffline(false)
  await page.getByTestId('waiting-bookings').waitFor({ state: 'detached', timeout: 60_000 })
  // the bar does not just go: the user is told they went, with the way to the list of writes
  const sent = page.getByTestId('sent-bookings')
  await sent.getByText('3 bookings made on this device sent to Exact Online').waitFor()
  assert.equal(await sent.getByRole('link', { name: 'See the list of writes' }).getAttribute('href'), `/mng?division=${division}#mng-outbox`)
  await waitFor(async () => (await issuesOfPick()).length >= baseline + 3, 'three material issues at the simulator', 60_000)
  // a little later still three: nothing was booked twice
  await page.waitForTimeout(3_000)
  const issues = await issuesOfPick()
  assert.equal(issues.length, baseline + 3)
  assert.ok(issues.every((m) => Number(m.Quantity) === 1))
  assert.equal((await offlineRecords(page, 'bookings')).length, 0)

  // once synced back, the server counts them as issued, and the form says so
  const left = pick.plan.PlannedQuantity - (pick.plan.IssuedQuantity ?? 0)
  await waitFor(
    async () => {
      const needing = await api(page, `/scanning/ordersNeeding?item=${pick.item.ID}`)
      const line = needing.find((n) => same(n.plan.ID, pick.plan.ID))
      return line && line.plan.IssuedQuantity === (pick.plan.IssuedQuantity ?? 0) + 3
    },
    'the three issues in the local copy',
    60_000,
  )
  await scan(pick.item.Code)
  await page.getByTestId('item-card').waitFor({ timeout: 30_000 })
  await page.getByRole('group', { name: 'Actions' }).getByRole('button', { name: 'Issue', exact: true }).tap()
  await page
    .getByText(`${fmt(left - 3)} still to issue · `)
    .first()
    .waitFor({ timeout: 30_000 })
})

test('an answer lost on the way back: the booking waits, is sent again under its key, and is booked once', async () => {
  const start = (await issuesOfPick()).length
  // the server gets every try and books it; each answer is lost before it reaches the handheld
  let reached = 0
  await page.route('**/api/v1/exact/updateMaterialsIssues*', async (route) => {
    reached++
    try {
      await route.fetch()
      await route.abort('connectionreset')
    } catch {
      // the handheld gave up on this try first (its write timeout): the answer is lost either way
    }
  })
  await page.locator('#scan-input').waitFor()
  await scan(pick.item.Code)
  // the last test left this item's card with its issue form open: the scan's card replaces it
  await page.locator('#issue-qty').waitFor({ state: 'detached', timeout: 30_000 })
  await page.getByTestId('item-card').waitFor({ timeout: 30_000 })
  await page.getByRole('group', { name: 'Actions' }).getByRole('button', { name: 'Issue', exact: true }).tap()
  await page
    .getByRole('radio', { name: new RegExp(`SO ${pick.order.ShopOrderNumber} `) })
    .first()
    .check()
  await page.locator('#issue-qty').fill('1')
  await page.getByRole('form', { name: 'Issue to a shop order' }).getByRole('button', { name: 'Issue', exact: true }).tap()
  await page.getByTestId('waiting-count').getByText('1 waiting to send').waitFor({ timeout: 60_000 })
  assert.ok(reached >= 1, 'the server was reached')
  await waitFor(async () => (await issuesOfPick()).length > start, 'the issue at the simulator', 60_000)
  await page.unroute('**/api/v1/exact/updateMaterialsIssues*')
  await page.getByTestId('waiting-bookings').waitFor({ state: 'detached', timeout: 60_000 })
  await page.getByTestId('write-status').and(page.locator('[data-state=delivered]')).waitFor({ timeout: 60_000 })
  await page.waitForTimeout(3_000)
  assert.equal((await issuesOfPick()).length, start + 1, `sent ${reached + 1} times, booked once`)
})
