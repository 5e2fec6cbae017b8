// Operator timers kept by the server, on two handhelds (390×844) signed in to one organization:
// a timer started on the first shows on the second at its next refresh, Stop on the second shows
// the hours for a check, and Book books them at the simulator and ends the timer on both.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { activate, api, MOBILE_UA, same, signIn, simulatorRows, syncSettled, watchConsole } from './flows.mjs'
import { launchBrowser, startServer } from './server.mjs'

const HANDHELD = { viewport: { width: 390, height: 844 }, userAgent: MOBILE_UA, hasTouch: true, isMobile: true, locale: 'en-GB' }

let server
let browser
let first
let second
let errors
let division

async function handheld() {
  const page = await (await browser.newContext(HANDHELD)).newPage()
  errors.push(watchConsole(page))
  await signIn(page, server.url)
  await activate(page, server.url, server.lines['Licence code'])
  return page
}

before(async () => {
  server = await startServer('demo')
  browser = await launchBrowser()
  errors = []
  first = await handheld()
  second = await handheld()
  division = new URL(first.url()).searchParams.get('division')
  await api(first, '/sync', { method: 'POST', body: {} })
  await syncSettled(first, 300_000)
})

after(async () => {
  await browser?.close()
  await server?.stop()
})

/** Rows of a provider path as the simulator holds them now. */
const rows = (path) => simulatorRows(server, division, path)

/** The operator screen of `employee` on a handheld. */
async function operator(page, employee) {
  await page.goto(`${server.url}/hours?division=${division}`)
  assert.equal(await page.getByRole('tab', { name: 'Operator' }).getAttribute('aria-selected'), 'true')
  await page.getByRole('button', { name: new RegExp(employee.FullName) }).click()
  await page.getByTestId('operator').waitFor()
}

/** `h:mm:ss` on a timer, in seconds. */
async function elapsedSeconds(timer) {
  const [h, m, s] = (await timer.getByLabel('Time running').innerText()).split(':').map(Number)
  return h * 3600 + m * 60 + s
}

test('a timer started on one handheld runs on the other, which stops it, checks the hours and books them', async () => {
  const employee = (await rows('payroll/Employees'))[2]
  const steps = await rows('manufacturing/ShopOrderRoutingStepPlans')
  const orders = await rows('manufacturing/ShopOrders')
  const step = steps.find((s) => orders.some((o) => same(o.ID, s.ShopOrder) && o.Status < 30))
  assert.ok(step, 'the demo has an open shop order with routing steps')
  const order = orders.find((o) => same(o.ID, step.ShopOrder))
  const earlier = new Set((await rows('manufacturing/TimeTransactions')).map((t) => t.ID))

  // the second handheld is on the operator's screen before the timer starts
  await operator(second, employee)
  assert.equal(await second.getByTestId('timer').count(), 0)

  await operator(first, employee)
  await first.getByLabel('Shop order').fill(String(order.ShopOrderNumber))
  await first.getByLabel('Shop order').press('Enter')
  await first.getByRole('button', { name: new RegExp(`^${step.LineNumber}\\. `) }).click()
  await first.getByRole('button', { name: 'Start', exact: true }).click()
  const onFirst = first.getByTestId('timer')
  await onFirst.waitFor()
  const startedAt = Date.now()

  // the second sees it at its next refresh (every 10 s), without a reload
  const onSecond = second.getByTestId('timer')
  await onSecond.waitFor({ timeout: 20_000 })
  assert.ok(Date.now() - startedAt < 15_000, `seen after ${Date.now() - startedAt} ms`)
  await onSecond.getByText(`Shop order ${order.ShopOrderNumber}`).waitFor()
  // both count from the server's start
  const [a, b] = [await elapsedSeconds(onFirst), await elapsedSeconds(onSecond)]
  assert.ok(Math.abs(a - b) <= 2, `${a} s and ${b} s`)

  // the first handheld does not hear of the booking below (its list is held back as it was), so
  // it can press Book on the same timer: the server, not the list, keeps the hours from counting twice
  const stale = await api(first, '/hours/timers')
  await first.route('**/api/v1/hours/timers', (r) => (r.request().method() === 'GET' ? r.fulfill({ json: stale }) : r.fallback()))

  // Stop shows the hours for a check: the elapsed time, to the hundredth
  await onSecond.getByRole('button', { name: 'Stop' }).click()
  const check = second.getByTestId('stop-check')
  const hours = check.getByLabel('Hours to book')
  const offered = Number((await hours.inputValue()).replace(',', '.'))
  assert.ok(offered >= 0.01 && offered <= 0.02, `offered ${offered} h`)
  await hours.fill('30')
  await check.getByText('A day has at most 24 hours.').waitFor()
  assert.ok(await check.getByRole('button', { name: 'Book', exact: true }).isDisabled())
  // the operator corrects it before booking
  await hours.fill('1,25')
  await check.getByRole('button', { name: 'Book', exact: true }).click()
  const status = second.getByTestId('write-status').first()
  await status.waitFor()
  await second.waitForFunction(() => ['delivered', 'failed'].includes(document.querySelector('[data-testid=write-status]')?.getAttribute('data-state')), null, {
    timeout: 120_000,
  })
  assert.equal(await status.getAttribute('data-state'), 'delivered', await status.innerText())
  await onSecond.waitFor({ state: 'detached' })

  await onFirst.getByRole('button', { name: 'Stop' }).click()
  await first.getByTestId('stop-check').getByRole('button', { name: 'Book', exact: true }).click()
  await first.getByText('This timer was stopped on another device: its hours were not booked again.').waitFor()
  await first.unroute('**/api/v1/hours/timers')

  const booked = (await rows('manufacturing/TimeTransactions')).filter((t) => !earlier.has(t.ID))
  assert.equal(booked.length, 1, 'one booking')
  assert.ok(same(booked[0].Employee, employee.ID))
  assert.ok(same(booked[0].ShopOrder, order.ID))
  assert.ok(same(booked[0].RoutingStepPlan, step.ID))
  assert.equal(booked[0].Hours, 1.25)
  assert.equal(booked[0].Activity, 20)

  // gone on the first handheld at its next refresh, and on the server
  await onFirst.waitFor({ state: 'detached', timeout: 20_000 })
  assert.deepEqual((await api(first, '/hours/timers')).timers, [])
  assert.deepEqual(errors.flat(), [])
})
