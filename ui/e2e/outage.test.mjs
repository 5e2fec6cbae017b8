// The provider going away while people work: the banner names the outage and the waiting
// writes, the screens keep reading from the local copy, and the queue drains once it is back.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { activate, api, signIn, watchConsole } from './flows.mjs'
import { launchBrowser, startServer } from './server.mjs'

let server
let browser
let page
let errors

before(async () => {
  server = await startServer('demo', [], { rateLimits: true })
  browser = await launchBrowser()
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, locale: 'en-GB' })
  page = await context.newPage()
  errors = watchConsole(page)
})

after(async () => {
  await browser?.close()
  await server?.stop()
})

const sim = (path, init) => fetch(server.lines.Simulator + path, init).then((r) => r.json())
const serving = (on) =>
  fetch(server.lines.Simulator + '/_sim/serving', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ on }),
  })

test('an outage shows with the waiting write, and ends with the write delivered once', async () => {
  await signIn(page, server.url)
  await activate(page, server.url, server.lines['Licence code'])
  const division = new URL(page.url()).searchParams.get('division')
  // a material line (a by-product is received, never issued) of an item tracked by no number
  const tracked = new Set((await sim(`/_sim/rows/${division}/logistics/Items`)).filter((i) => i.IsSerialItem === true || i.IsBatchItem === 1).map((i) => i.ID))
  const plan = (await sim(`/_sim/rows/${division}/manufacturing/ShopOrderMaterialPlans`)).find((p) => p.Type === 1 && !tracked.has(p.Item))
  const before = (await sim(`/_sim/rows/${division}/manufacturing/MaterialIssues`)).length

  await serving(false)
  const write = await page.request.post(new URL('/api/v1/exact/updateMaterialsIssues', server.url).href, {
    data: { ShopOrderMaterialPlan: plan.ID, Quantity: 2, TransactionDate: '2026-11-21' },
  })
  assert.equal(write.status(), 202, 'queued while Exact Online is away')
  const banner = page.getByTestId('outage')
  await banner.waitFor({ timeout: 30_000 })
  assert.match(await banner.innerText(), /Exact Online cannot be reached since \d\d:\d\d/)
  assert.match(await banner.innerText(), /1 change waits and is sent when Exact Online is back/)
  // Reads go on from the local copy meanwhile.
  const session = await api(page, '/auth/session')
  assert.equal(String(session.division), division)

  await banner.getByRole('link', { name: 'Show the queue' }).click()
  await page.waitForURL(/\/mng\?division=\d+/)
  await page.getByRole('heading', { name: 'Outbox' }).waitFor()

  await serving(true)
  await banner.waitFor({ state: 'detached', timeout: 60_000 })
  const end = Date.now() + 30_000
  let outbox
  while (Date.now() < end) {
    outbox = await api(page, '/outbox')
    if (outbox.pending === 0) break
    await page.waitForTimeout(500)
  }
  assert.equal(outbox.pending, 0, 'the queue drained')
  const issues = await sim(`/_sim/rows/${division}/manufacturing/MaterialIssues`)
  assert.equal(issues.length, before + 1, 'delivered exactly once')
  assert.deepEqual(errors, [])
})
