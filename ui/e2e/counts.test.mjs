// Count sessions against the demo: the office starts a count of a storage location on the
// desktop, a handheld counts it (one item with a difference, one counted again and answered
// "Use …"), the office reviews it and sends it, and the simulator holds one StockCount with
// exactly those lines.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { api, MOBILE_UA, same, scanCode, signIn, simulatorRows, syncedDemo, waitFor, watchConsole } from './flows.mjs'

let server
let browser
let desk
let deskErrors
let hand
let handErrors
let division

before(async () => {
  ;({ server, browser, page: desk, errors: deskErrors, division } = await syncedDemo({ viewport: { width: 1440, height: 900 }, locale: 'en-GB' }))
  const handheld = await browser.newContext({ viewport: { width: 390, height: 844 }, userAgent: MOBILE_UA, hasTouch: true, isMobile: true, locale: 'en-GB' })
  hand = await handheld.newPage()
  handErrors = watchConsole(hand)
  await signIn(hand, server.url)
})

after(async () => {
  await browser?.close()
  await server?.stop()
})

const simRows = (path) => simulatorRows(server, division, path)
const fmt = (n) => Number(n).toLocaleString('en-GB', { maximumFractionDigits: 3 })
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

/**
 * A storage location with stock of two items tracked by no number (a serial or batch item is
 * counted in Scanning, with its numbers), whole quantities under a thousand, as the local copy
 * has it: what the review expects.
 */
async function locationWithStock() {
  const positions = await api(
    desk,
    '/db/storageLocationStockPositions?Stock=gt.0&select=Item,ItemCode,StorageLocation,StorageLocationCode,Warehouse,WarehouseCode,Stock&limit=1000',
  )
  const items = await simRows('logistics/Items')
  const untracked = new Set(items.filter((i) => i.IsSerialItem !== true && i.IsBatchItem !== 1 && i.IsBatchItem !== true).map((i) => i.ID.toLowerCase()))
  const byPlace = new Map()
  for (const p of positions) {
    if (!p.StorageLocation || !untracked.has(p.Item.toLowerCase()) || !Number.isInteger(p.Stock) || p.Stock >= 1000) continue
    const key = p.StorageLocation.toLowerCase()
    byPlace.set(key, [...(byPlace.get(key) ?? []), p])
  }
  for (const list of byPlace.values()) {
    const codes = new Set(list.map((p) => p.ItemCode))
    // each item once at the place, with codes that are not part of each other
    if (list.length < 2 || codes.size !== list.length) continue
    const [a, b] = list
    if (a.ItemCode.includes(b.ItemCode) || b.ItemCode.includes(a.ItemCode)) continue
    return {
      a,
      b,
      location: a.StorageLocation.toLowerCase(),
      locationCode: a.StorageLocationCode,
      warehouse: a.Warehouse.toLowerCase(),
      warehouseCode: a.WarehouseCode,
    }
  }
  throw new Error('the demo has no storage location with stock of two untracked items')
}

/** Scans an item on the handheld as its scanner would, then types the quantity and taps Add to count. */
async function countOnHandheld(code, quantity) {
  await hand.locator('#count-scan').fill(code)
  await hand.locator('#count-scan').press('Enter')
  const qty = hand.getByLabel('Counted quantity')
  await qty.waitFor()
  await qty.fill(String(quantity))
  await hand.getByRole('button', { name: 'Add to count', exact: true }).tap()
}

/** Visible controls under 44 px on the page, each described (as the handheld spec checks them). */
function smallTargets(page) {
  return page.evaluate(() => {
    const small = []
    for (const el of document.querySelectorAll('button, a[href], input, select, summary, [role=button]')) {
      const r = el.getBoundingClientRect()
      if (r.width <= 1 || r.height <= 1 || getComputedStyle(el).visibility === 'hidden' || el.closest('[hidden], dialog:not([open])')) continue
      if (r.height < 44 || r.width < 44)
        small.push(
          `${el.tagName.toLowerCase()} "${(el.getAttribute('aria-label') ?? el.textContent ?? '').trim().slice(0, 40)}" ${Math.round(r.width)}×${Math.round(r.height)}`,
        )
    }
    return small
  })
}

const note = (text) => hand.getByTestId('count-note').filter({ hasText: text }).waitFor()

test('a location count: started on the desktop, counted on a handheld, reviewed and sent as one StockCount', async () => {
  const place = await locationWithStock()
  const { a, b } = place
  const description = `E2E count ${Date.now()}`
  const title = `Location ${place.locationCode} in warehouse ${place.warehouseCode}`

  // the office starts the count
  await desk.goto(`${server.url}/counts?division=${division}`)
  await desk.getByRole('button', { name: 'New count' }).click()
  await desk.getByLabel('What to count').selectOption('location')
  await desk.waitForFunction((w) => [...document.querySelectorAll('select[name=warehouse] option')].some((o) => o.value === w), place.warehouse)
  await desk.getByLabel('Warehouse').selectOption(place.warehouse)
  await desk.waitForFunction((l) => [...document.querySelectorAll('select[name=location] option')].some((o) => o.value === l), place.location)
  await desk.getByLabel('Location').selectOption(place.location)
  await desk.getByLabel('Description (optional)').fill(description)
  await desk.getByRole('button', { name: 'Start count' }).click()
  await desk.waitForURL(/[?&]id=/)
  await desk.getByRole('heading', { name: title }).waitFor()

  // the handheld opens it from the list and counts: the first item as expected, the second 3 more
  await hand.goto(`${server.url}/counts?division=${division}`)
  await hand.getByRole('region', { name: 'Open counts' }).getByRole('link', { name: title }).first().tap()
  await hand.getByRole('heading', { name: title }).waitFor()
  await countOnHandheld(a.ItemCode, a.Stock)
  await note(`Counted ${fmt(a.Stock)} × ${a.ItemCode} at ${place.locationCode}.`)
  await countOnHandheld(b.ItemCode, b.Stock + 3)
  await note(`Counted ${fmt(b.Stock + 3)} × ${b.ItemCode} at ${place.locationCode}.`)

  // counted again with another quantity: the server asks which count stands, and the new one does
  await countOnHandheld(b.ItemCode, b.Stock + 2)
  const ask = hand.getByTestId('count-conflict')
  await ask.waitFor()
  assert.match(
    await ask.innerText(),
    new RegExp(`${escape(b.ItemCode)} at ${escape(place.locationCode)} was counted as ${b.Stock + 3} by .+: which count stands\\?`),
  )
  await ask.getByRole('button', { name: `Keep ${fmt(b.Stock + 3)}` }).waitFor()
  await ask.getByRole('button', { name: `Use ${fmt(b.Stock + 2)}` }).tap()
  await note(`${fmt(b.Stock + 2)} × ${b.ItemCode} at ${place.locationCode} stands now.`)
  assert.equal(await hand.getByTestId('counted-line').count(), 2)
  // one-handed: nothing wider than the screen, every target at least 44 px
  const wider = await hand.evaluate(() =>
    [...document.querySelectorAll('main section, main input, main button')]
      .filter((el) => el.getBoundingClientRect().right > window.innerWidth + 0.5)
      .map((el) => el.tagName.toLowerCase() + ' ' + (el.id || el.getAttribute('aria-labelledby') || el.textContent.trim().slice(0, 30))),
  )
  assert.deepEqual(wider, [], 'the count fits the handheld’s width')
  assert.deepEqual(await smallTargets(hand), [])

  // the office sees both lines and the one difference (a reload keeps the count open)
  await desk.reload()
  await desk.getByRole('heading', { name: title }).waitFor()
  const row = (code) => desk.getByTestId('review-row').filter({ has: desk.getByText(code, { exact: true }) })
  await row(b.ItemCode).filter({ hasText: '+2' }).waitFor()
  assert.equal(await desk.getByTestId('review-counted').innerText(), '2')
  assert.equal(await desk.getByTestId('review-differences').innerText(), '1')
  const cells = await row(b.ItemCode).locator('td').allInnerTexts()
  assert.deepEqual(cells.slice(1, 5), [place.locationCode, fmt(b.Stock), fmt(b.Stock + 2), '+2'])
  const differences = desk.waitForResponse((r) => r.url().includes('/review?filter=differences'))
  await desk.getByRole('tab', { name: 'Differences' }).click()
  await differences
  // the item counted as expected is no difference; the other one is
  await waitFor(async () => (await row(a.ItemCode).count()) === 0, `${a.ItemCode} to leave the differences`, 10_000)
  await row(b.ItemCode).waitFor()

  // an administrator processes it; anyone else sends a draft for someone with the right
  const admin = (await api(desk, '/auth/session')).administrator !== 'none'
  const [action, yes, status, exactStatus] = admin
    ? ['Process in Exact Online', 'Process', 'processed', 21]
    : ['Send as draft to Exact Online', 'Send as draft', 'draft', 12]
  if (!admin) assert.ok(await desk.getByRole('button', { name: 'Process in Exact Online' }).isDisabled())
  await desk.getByRole('button', { name: action }).click()
  await desk.getByRole('dialog').getByRole('button', { name: yes, exact: true }).click()
  // the count is read again every few seconds while it is on its way
  await desk.locator(`[data-testid=count-status][data-status=${status}]`).waitFor({ timeout: 60_000 })

  const sent = (await simRows('inventory/StockCounts')).filter((c) => c.Description === description)
  assert.equal(sent.length, 1, 'exactly one StockCount')
  assert.equal(sent[0].Status, exactStatus)
  assert.ok(same(sent[0].Warehouse, place.warehouse))
  const lines = (await simRows('inventory/StockCountLines')).filter((l) => same(l.StockCountID, sent[0].StockCountID))
  const got = lines.map((l) => [l.Item.toLowerCase(), l.StorageLocation?.toLowerCase(), l.QuantityNew]).sort()
  const want = [
    [a.Item.toLowerCase(), place.location, a.Stock],
    [b.Item.toLowerCase(), place.location, b.Stock + 2],
  ].sort()
  assert.deepEqual(got, want)

  // the handheld's count is closed now: no more counting there
  await hand.reload()
  await hand.locator(`[data-testid=count-status][data-status=${status}]`).waitFor()
  assert.equal(await hand.locator('#count-scan').count(), 0)
  assert.deepEqual(deskErrors, [])
  assert.deepEqual(handErrors, [])
})

test('in Dutch: the server asks which count stands, and a label from the local copy says so, in Dutch', async () => {
  const place = await locationWithStock()
  const { b } = place
  // the handheld's user reads Dutch
  await hand.goto(`${server.url}/accountSettings?division=${division}`)
  await hand.getByLabel('Nederlands').check()
  await hand.getByRole('heading', { name: 'Accountinstellingen' }).waitFor()

  const started = await api(desk, '/counts', {
    method: 'POST',
    body: {
      kind: 'location',
      warehouse: place.warehouse,
      warehouseCode: place.warehouseCode,
      usesLocations: true,
      location: place.location,
      locationCode: place.locationCode,
      description: `E2E Dutch count ${Date.now()}`,
    },
  })
  await hand.goto(`${server.url}/counts?division=${division}&id=${started.id}`)
  await hand.getByRole('heading', { name: `Locatie ${place.locationCode} in magazijn ${place.warehouseCode}` }).waitFor()
  const count = async (quantity) => {
    await hand.locator('#count-scan').fill(b.ItemCode)
    await hand.locator('#count-scan').press('Enter')
    const qty = hand.getByLabel('Geteld aantal')
    await qty.waitFor()
    await qty.fill(String(quantity))
    await hand.getByRole('button', { name: 'Aan telling toevoegen', exact: true }).tap()
  }
  await count(b.Stock + 1)
  await hand
    .getByTestId('count-note')
    .filter({ hasText: `× ${b.ItemCode} op ${place.locationCode} geteld.` })
    .waitFor()
  await count(b.Stock + 4)
  // the question is the server's, in Dutch, with the quantity in Dutch
  const ask = hand.getByTestId('count-conflict')
  await ask.waitFor()
  assert.match(
    await ask.innerText(),
    new RegExp(`${escape(b.ItemCode)} op ${escape(place.locationCode)} is geteld als ${b.Stock + 1} door .+: welke telling geldt\\?`),
  )

  // Exact Online goes away: the item's label comes from the local copy, and says so in Dutch
  await fetch(`${server.lines.Simulator}/_sim/serving`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"on":false}' })
  try {
    await hand.goto(`${server.url}/scanning?division=${division}`)
    await scanCode(hand, b.ItemCode)
    await hand.getByRole('button', { name: 'Etiket', exact: true }).tap()
    const [popup, res] = await Promise.all([
      hand.context().waitForEvent('page'),
      hand.waitForResponse((r) => r.url().endsWith('/api/v1/labels') && r.request().method() === 'POST', { timeout: 60_000 }),
      hand.getByRole('button', { name: 'Openen als pdf' }).tap(),
    ])
    assert.equal(res.status(), 200, await res.text())
    await popup.close()
    const result = hand.getByTestId('label-result')
    await result.waitFor()
    assert.equal(await result.getAttribute('data-status'), 'WARNING')
    const said = await result.innerText()
    assert.match(said, /Gemaakt uit de lokale kopie (van .+|, die nog nooit is gesynchroniseerd): Exact Online is niet bereikbaar/)
    assert.doesNotMatch(said, /local copy|Skipped/, 'nothing of it in English')
  } finally {
    await fetch(`${server.lines.Simulator}/_sim/serving`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"on":true}' })
  }
  assert.deepEqual(handErrors, [])
})
