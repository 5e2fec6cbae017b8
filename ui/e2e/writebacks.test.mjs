// Write-backs from the screens against the demo: a shop order's selection code, Your Ref and lead
// days from its window; a whole project shifted after a confirmation that lists its orders; a
// sales order line's delivery date; and an hour booking deleted. Each is checked at the simulator.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { activate, api, iso, msOf, signIn, simulatorRows, syncSettled, waitFor, watchConsole } from './flows.mjs'
import { launchBrowser, startServer } from './server.mjs'

const DAY = 86_400_000

let server
let browser
let page
let errors
let division

/** The simulator's current rows of a provider path (loopback control endpoint). */
const simRows = (path) => simulatorRows(server, division, path)

const same = (a, b) => String(a ?? '').toLowerCase() === String(b ?? '').toLowerCase()

/** Open shop orders with both dates, by number. */
async function openOrders() {
  const rows = await simRows('manufacturing/ShopOrders')
  return rows.filter((r) => r.Status < 30 && r.PlannedStartDate && r.PlannedDate).sort((a, b) => a.ShopOrderNumber - b.ShopOrderNumber)
}

/** Opens a shop order's window from the planning (found by its number). */
async function openOrder(number) {
  await page.getByLabel('Search', { exact: true }).fill(String(number))
  await page.getByTestId(`bar-${number}`).click()
  const modal = page.getByTestId('shop-order-modal')
  await modal.getByRole('heading', { name: new RegExp(`^Shop order ${number}\\b`) }).waitFor()
  return modal
}

async function closeOrder(modal) {
  await modal.getByRole('button', { name: 'Close' }).click()
  await modal.waitFor({ state: 'detached' })
  await page.getByLabel('Search', { exact: true }).fill('')
}

before(async () => {
  server = await startServer('demo')
  browser = await launchBrowser()
  const context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'en-GB', timezoneId: 'Europe/Amsterdam' })
  page = await context.newPage()
  errors = watchConsole(page)
  await signIn(page, server.url)
  await activate(page, server.url, server.lines['Licence code'])
  division = new URL(page.url()).searchParams.get('division')
  await api(page, '/sync', {
    method: 'POST',
    body: { endpoints: ['shopOrders', 'shopOrderMaterialPlans', 'shopOrderRoutingStepPlans', 'stockPositions', 'projects', 'items', 'salesOrderLines'] },
  })
  await syncSettled(page, 300_000)
  await page.getByRole('link', { name: 'Planning' }).click()
  await page.waitForURL(/\/planning\?division=/)
  await page.locator('[data-testid^=bar-]').first().waitFor()
})

after(async () => {
  await browser?.close()
  await server?.stop()
})

test('the shop order window changes the selection code, Your Ref and lead days in Exact Online', async () => {
  const target = (await openOrders()).find((o) => !o.Project)
  const codes = await simRows('logistics/SelectionCodes')
  const code = codes.find((c) => !same(c.ID, target.SelectionCode))
  const modal = await openOrder(target.ShopOrderNumber)
  const details = modal.getByTestId('order-details')
  await details.getByLabel('Selection code').selectOption(code.ID.toLowerCase())
  await details.getByLabel('Your Ref').fill('E2E-REF-7')
  await details.getByLabel('Production lead days').fill('x')
  await details.getByRole('button', { name: 'Save details' }).click()
  await details.getByText('Enter the production lead days as a whole number, 0 or more.').waitFor()
  await details.getByLabel('Production lead days').fill(String(target.ProductionLeadDays + 2))
  await details.getByRole('button', { name: 'Save details' }).click()
  await modal.getByTestId('planning-writes').locator('li', { hasText: 'Your Ref: E2E-REF-7' }).getByText('Saved in Exact Online').waitFor({ timeout: 120_000 })
  const row = await waitFor(async () => {
    const r = (await simRows('manufacturing/ShopOrders')).find((x) => x.ID === target.ID)
    return r.YourRef === 'E2E-REF-7' ? r : null
  }, 'Your Ref at the simulator')
  assert.ok(same(row.SelectionCode, code.ID))
  assert.equal(row.SelectionCodeCode, code.Code)
  assert.equal(row.ProductionLeadDays, target.ProductionLeadDays + 2)
  await closeOrder(modal)
})

test('shifting the whole project moves every open order of it after a confirmation', async () => {
  const open = await openOrders()
  const byProject = new Map()
  for (const o of open.filter((o) => o.Project)) byProject.set(o.Project, [...(byProject.get(o.Project) ?? []), o])
  const orders = [...byProject.values()].filter((l) => l.length >= 2).sort((a, b) => a.length - b.length)[0]
  assert.ok(orders, 'a project with two or more open orders')
  const [first] = orders

  const modal = await openOrder(first.ShopOrderNumber)
  await modal.getByLabel('Shift the whole project').check()
  await modal.getByLabel('Planned start').fill(iso(msOf(first.PlannedStartDate) + 3 * DAY))
  await modal.getByLabel('Planned date').fill(iso(msOf(first.PlannedDate) + 3 * DAY))
  await modal.getByRole('button', { name: 'Save dates' }).click()

  // nothing is sent before the yes; the question lists every order with its dates
  const list = page.getByTestId('project-shift')
  await list.waitFor()
  const listed = await list.getByTestId('project-shift-order').evaluateAll((rows) => rows.map((r) => Number(r.dataset.number)))
  assert.deepEqual([...listed].sort(), orders.map((o) => o.ShopOrderNumber).sort())
  for (const o of orders) {
    const text = await list.locator(`[data-number="${o.ShopOrderNumber}"]`).innerText()
    for (const f of ['PlannedStartDate', 'PlannedDate'])
      assert.ok(text.includes(`${iso(msOf(o[f]))} → ${iso(msOf(o[f]) + 3 * DAY)}`), `${o.ShopOrderNumber}: ${text}`)
  }
  assert.ok(await page.getByText(`Move these ${orders.length} shop orders of project`).isVisible())
  const before = (await simRows('manufacturing/ShopOrders')).find((x) => x.ID === first.ID)
  assert.equal(before.PlannedStartDate, first.PlannedStartDate)
  await page.getByRole('button', { name: `Move ${orders.length} orders` }).click()
  await list.waitFor({ state: 'detached' })

  // one update per order, all of them at the simulator
  await waitFor(
    async () => {
      const rows = await simRows('manufacturing/ShopOrders')
      return orders.every((o) => {
        const r = rows.find((x) => x.ID === o.ID)
        return msOf(r.PlannedStartDate) === msOf(o.PlannedStartDate) + 3 * DAY && msOf(r.PlannedDate) === msOf(o.PlannedDate) + 3 * DAY
      })
    },
    'every order of the project three days later',
    240_000,
  )
  await closeOrder(modal)
})

test("a sales order line's delivery date changes from the shop order window", async () => {
  const open = await openOrders()
  const lines = await simRows('salesorder/SalesOrderLines')
  // nothing delivered yet (12 Open): the regular endpoint has no Status, the sync one does
  const line = lines.find((l) => l.ShopOrder && l.DeliveryStatus === 12 && open.some((o) => same(o.ID, l.ShopOrder)))
  assert.ok(line, 'an open sales order line made by an open shop order')
  const order = open.find((o) => same(o.ID, line.ShopOrder))
  const modal = await openOrder(order.ShopOrderNumber)
  const row = modal.getByTestId('sales-line').filter({ hasText: `Sales order ${line.OrderNumber} line ${line.LineNumber}` })
  const date = iso(msOf(line.DeliveryDate) + 9 * DAY)
  await row.getByLabel(`Delivery date of Sales order ${line.OrderNumber} line ${line.LineNumber}`).fill(date)
  await row.getByRole('button', { name: 'Save date' }).click()
  await row.locator('[data-testid=write-status][data-state=delivered]').waitFor({ timeout: 120_000 })
  const after = (await simRows('salesorder/SalesOrderLines')).find((l) => l.ID === line.ID)
  assert.equal(iso(msOf(after.DeliveryDate)), date)
  await closeOrder(modal)
})

test('a wrongly booked hour is deleted from the week view', async () => {
  const employee = (await simRows('payroll/Employees'))[0]
  const today = new Date()
  const day = `${today.getFullYear()}-${String(today.getMonth() + 1).padStart(2, '0')}-${String(today.getDate()).padStart(2, '0')}`
  const booked = await api(page, '/exact/timeTransactions?wait=10', {
    method: 'POST',
    body: { data: { Employee: employee.ID, Date: `${day}T00:00:00`, Hours: 3.25, Activity: 20, Notes: 'booked by mistake' } },
  })
  assert.equal(booked.state, 'delivered')
  const id = booked.entries[0].uid
  assert.ok((await simRows('manufacturing/TimeTransactions')).some((t) => same(t.ID, id)))

  await page.goto(`${server.url}/hours?division=${division}`)
  await page.getByTestId('week-title').waitFor()
  // named once the employees are read (live, so it may wait for the provider's minute)
  const entry = page.getByTestId('hour-entry').filter({ hasText: 'booked by mistake' }).filter({ hasText: employee.FullName })
  await entry.waitFor({ timeout: 120_000 })
  await entry.getByRole('button', { name: 'Delete' }).click()
  await page.getByText(`Delete 3.25 h of ${employee.FullName}`).waitFor()
  // "Keep it" sends nothing
  await page.getByRole('button', { name: 'Keep it' }).click()
  assert.ok((await simRows('manufacturing/TimeTransactions')).some((t) => same(t.ID, id)))
  await entry.getByRole('button', { name: 'Delete' }).click()
  await page.getByRole('button', { name: 'Delete in Exact Online' }).click()
  await entry.waitFor({ state: 'detached', timeout: 120_000 })
  assert.ok(!(await simRows('manufacturing/TimeTransactions')).some((t) => same(t.ID, id)))
  assert.deepEqual(errors, [])
})
