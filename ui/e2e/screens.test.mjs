// The screens against the demo: the Table view (sync toasts, search, filters), settings,
// the language switch, item import through the outbox and the database page.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { activate, api, MOBILE_UA, signIn, simulatorFaults, syncSettled, watchConsole } from './flows.mjs'
import { launchBrowser, startServer } from './server.mjs'

let server
let browser
let context
let page
let errors
let division

before(async () => {
  server = await startServer('demo')
  browser = await launchBrowser()
  context = await browser.newContext({ viewport: { width: 1440, height: 900 }, locale: 'en-GB' })
  page = await context.newPage()
  errors = watchConsole(page)
})

after(async () => {
  await browser?.close()
  await server?.stop()
})

const count = async () => Number((await page.getByTestId('stock-count').innerText()).replace(/\D/g, ''))

/** The item codes of the rows in view. */
const codes = () => page.getByTestId('stock-rows').locator('[role=row] [role=cell]:nth-child(2) a').allInnerTexts()

/** Waits for the Table view to settle after a change, and returns its row count. */
async function settled() {
  await page.waitForFunction(() => {
    const c = document.querySelector('[data-testid=stock-count]')
    return c && !c.textContent.includes('…')
  })
  await page.waitForTimeout(400)
  await page.waitForFunction(() => !document.querySelector('[data-testid=stock-count]')?.textContent.includes('…'))
  return count()
}

test('a signed-out user is sent Home from the new screens', async () => {
  const p = await browser.newPage()
  for (const path of ['/mng', '/globalSettings', '/importItems', '/accountSettings']) {
    await p.goto(server.url + path + '?division=1')
    await p.waitForURL(server.url + '/')
  }
  await p.close()
})

test('sign in, activate, sync with toasts that finish, and the Table view fills', async () => {
  await signIn(page, server.url)
  await activate(page, server.url, server.lines['Licence code'])
  division = new URL(page.url()).searchParams.get('division')
  assert.equal(await count(), 0)

  // a slow Exact Online keeps the toasts long enough to click one (the demo has no rate limits)
  await simulatorFaults(server, { latency_ms: 400 })
  await page.getByRole('button', { name: 'Sync Data' }).click()
  const toasts = page.getByRole('list', { name: 'Sync progress' })
  await toasts
    .getByText(/^Refreshing /)
    .first()
    .waitFor()
  await toasts
    .getByText(/Done|seconds? remaining/)
    .first()
    .waitFor()
  // the newest three show; the line above them shows the earlier ones too
  const earlier = toasts.getByRole('button', { name: /^\d+ earlier tables?$/ })
  if (await earlier.isVisible()) {
    await earlier.click()
    await toasts.getByRole('button', { name: 'Show fewer' }).waitFor()
  }
  // a click collapses a toast (found by its name: the list changes as tables start and end, and
  // on a busy machine the chosen table may finish and its toast leave before the click: then
  // another is chosen)
  let collapsed = false
  for (let attempt = 0; attempt < 5 && !collapsed; attempt++) {
    const name = (await toasts.getByRole('button', { expanded: true }).last().locator('span').first().innerText()).trim()
    const toast = toasts.getByRole('button', { name: new RegExp(`^${name}`) })
    try {
      await toast.click({ timeout: 5_000 })
      collapsed = (await toast.getAttribute('aria-expanded', { timeout: 2_000 })) === 'false'
    } catch {
      // it left: try the next one
    }
  }
  assert.ok(collapsed, 'a click collapsed a sync toast')
  await simulatorFaults(server, {})
  await syncSettled(page)
  // finished toasts leave, and the table is read again
  await toasts.waitFor({ state: 'detached', timeout: 30_000 })
  await page.waitForFunction(() => /[1-9]/.test(document.querySelector('[data-testid=stock-count]')?.textContent ?? ''))
  assert.equal(await settled(), 500, 'about 500 items come first')
  assert.ok(await page.getByRole('button', { name: 'Load more' }).isVisible())
})

test('the server answers the shapes the UI reads (src/api/*.ts)', async () => {
  const has = (obj, keys, what) => {
    for (const k of keys) assert.ok(obj && k in obj, `${what} lacks ${k}: ${JSON.stringify(obj).slice(0, 200)}`)
  }
  const session = await api(page, '/auth/session')
  has(
    session,
    [
      'tier',
      'userName',
      'fullName',
      'customer_name',
      'division',
      'divisions',
      'registered',
      'tokenExpiresAt',
      'refreshingAuthorization',
      'importDataUntil',
      'organizationDetails',
      'userPreferences',
    ],
    'session',
  )
  has(session.organizationDetails, ['uuid', 'division', 'name', 'sync_timestamps', 'preferences'], 'organizationDetails')
  const sync = await api(page, '/sync')
  has(sync, ['running', 'last_sync', 'tables'], 'sync')
  has(sync.tables.items, ['rows', 'timestamp', 'error'], 'sync table')
  has((await api(page, '/sync/endpoints'))[0], ['table', 'name', 'sync', 'default_selected'], 'sync endpoint')
  has(await api(page, '/outbox'), ['pending', 'failed', 'entries'], 'outbox')
  const fields = (s) => s.split(',')
  const item = (await api(page, '/db/items?limit=1'))[0]
  has(item, fields('ID,Code,Description,ItemGroup,ItemGroupCode,ItemGroupDescription,Unit,UnitDescription,EndDate,PictureThumbnailUrl'), 'item')
  has(
    (await api(page, '/db/storageLocationStockPositions?limit=1'))[0],
    fields('Item,Stock,WarehouseCode,WarehouseDescription,StorageLocationCode'),
    'storage location stock position',
  )
  has(
    (await api(page, '/db/stockPositions?limit=1'))[0],
    fields('ItemId,CurrentStock,WarehouseCode,WarehouseDescription,Warehouse,ItemCode,ItemDescription'),
    'stock position',
  )
  has((await api(page, '/db/shopOrders?limit=1'))[0], fields('ShopOrderNumber,Item'), 'shop order')
  has((await api(page, '/exact/live/warehouses'))[0], fields('ID,Code,Description,UseStorageLocations'), 'warehouse')
  has((await api(page, '/exact/live/itemGroups'))[0], fields('ID,Code,Description'), 'item group')
})

test('more items load on demand, and only the rows in view are in the page', async () => {
  const rows = page.getByTestId('stock-rows')
  assert.ok((await rows.locator('[role=row]').count()) < 80)
  await rows.evaluate((el) => (el.scrollTop = el.scrollHeight))
  await page.waitForFunction(() => Number(document.querySelector('[data-testid=stock-count]')?.textContent.replace(/\D/g, '')) > 500)
  assert.ok((await rows.locator('[role=row]').count()) < 80)
})

test('search and filters change the rows', async () => {
  const all = await settled()
  const search = page.getByRole('searchbox', { name: 'Search' })

  await search.fill('moer')
  const moer = await settled()
  assert.ok(moer > 0 && moer < all, `search 'moer': ${moer} of ${all}`)
  const descriptions = await page.getByTestId('stock-rows').locator('[role=row] [role=cell]:nth-child(3)').allInnerTexts()
  assert.ok(
    descriptions.every((d) => /moer/i.test(d)),
    descriptions.join(' | '),
  )

  // an item code
  const [code] = (await api(page, '/db/items?select=Code&limit=1&offset=7')).map((r) => r.Code)
  await search.fill(code)
  await settled()
  assert.deepEqual(await codes(), [code])

  // a shop order number finds its item
  const [so] = await api(page, '/db/shopOrders?select=ShopOrderNumber,ItemCode&limit=1')
  await search.fill(String(so.ShopOrderNumber))
  await settled()
  assert.ok((await codes()).includes(so.ItemCode), `shop order ${so.ShopOrderNumber} → ${so.ItemCode}`)
  await page.getByText(`Shop order ${so.ShopOrderNumber}`).first().waitFor()
  await search.fill('')
  assert.equal(await settled(), all)

  // item group
  const group = page.getByLabel('Item group')
  const options = await group.locator('option').allInnerTexts()
  await group.selectOption({ label: options[1] })
  const inGroup = await settled()
  assert.ok(inGroup > 0 && inGroup <= all)
  const groups = await page.getByTestId('stock-rows').locator('[role=row] [role=cell]:nth-child(4)').allInnerTexts()
  assert.ok(
    groups.every((g) => g === options[1]),
    `${groups[0]} vs ${options[1]}`,
  )
  await group.selectOption('')

  // warehouse: only items with stock there
  const warehouse = page.getByLabel('Warehouse')
  const whOptions = await warehouse.locator('option').allInnerTexts()
  const second = whOptions.find((o) => o.startsWith('2 ')) ?? whOptions[2]
  await warehouse.selectOption({ label: second })
  const inWarehouse = await settled()
  assert.ok(inWarehouse > 0 && inWarehouse < all, `warehouse ${second}: ${inWarehouse}`)
  await warehouse.selectOption('')

  // inactive
  await page.getByLabel('Status').selectOption('inactive')
  const inactive = await settled()
  assert.ok(inactive < all)
  await page.getByLabel('Status').selectOption('active')
  assert.equal(await settled(), all)
})

test('the filters tooltip shows on keyboard focus', async () => {
  await page.getByRole('button', { name: 'About search and filters' }).focus()
  const tip = page.getByRole('tooltip').filter({ hasText: 'Search matches a shop order number' })
  await page.waitForFunction((el) => getComputedStyle(el).opacity === '1', await tip.elementHandle())
})

test('Global Settings saves organization preferences', async () => {
  await page.getByRole('button', { name: 'Settings' }).click()
  const menu = page.getByRole('menu')
  assert.deepEqual(await menu.getByRole('menuitem').allInnerTexts(), ['Global Settings', 'Import Items', 'Account Settings', 'Database', 'Logout'])
  await menu.getByRole('menuitem', { name: 'Global Settings' }).click()
  await page.waitForURL(/\/globalSettings\?division=/)
  await page.getByLabel('Hide weekends in the planning').check()
  await page.getByLabel('Sync every (minutes, 0 = only by hand)').fill('30')
  await page.getByLabel('Label type for goods receipts').selectOption('cnc-new')
  await page.getByRole('button', { name: 'Save' }).click()
  await page.getByText('Saved.').waitFor()
  const details = await api(page, '/organizationDetails')
  assert.equal(details.preferences.weekends_disabled, true)
  assert.equal(details.preferences.sync_interval_minutes, 30)
  assert.equal(details.preferences.label_type_receipt, 'cnc-new')
})

test('Account Settings switches the app to Dutch and back, and remembers it', async () => {
  await page.goto(`${server.url}/accountSettings?division=${division}`)
  await page.getByLabel('Nederlands').check()
  await page.getByRole('heading', { name: 'Accountinstellingen' }).waitFor()
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'nl')
  await page.waitForFunction(async () => {
    const s = await (await fetch('/api/v1/auth/session')).json()
    return s.userPreferences?.language === 'nl'
  })
  await page.goto(`${server.url}/dashboard?division=${division}`)
  await page.getByRole('button', { name: 'Gegevens synchroniseren' }).waitFor()
  await page.getByRole('searchbox', { name: 'Zoeken' }).waitFor()
  assert.equal(await page.getByLabel('Magazijn').locator('option').first().innerText(), 'Alle magazijnen')
  await page.goto(`${server.url}/accountSettings?division=${division}`)
  await page.getByLabel('English').check()
  await page.getByRole('heading', { name: 'Account Settings' }).waitFor()
})

test('Import Items: upload, map, check row errors, import through the outbox', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'esm-import-'))
  const file = join(dir, 'items.csv')
  const [existing] = await api(page, '/db/items?select=Code&limit=1')
  const groups = await api(page, '/exact/live/itemGroups')
  writeFileSync(
    file,
    [
      'Artikelcode;Omschrijving;Artikelgroep;Voorraadartikel',
      `E2E-NEW-1;Montageplaat e2e;${groups[0].Code};ja`,
      `${existing.Code};;;nee`,
      'E2E-BAD;;NOPE;misschien',
    ].join('\n'),
  )
  await page.goto(`${server.url}/importItems?division=${division}`)
  await page.locator('input[type=file]').setInputFiles(file)
  assert.equal(await page.getByLabel('Item code *').inputValue(), '0')
  assert.equal(await page.getByLabel('Item group (code)').inputValue(), '2')
  await page.getByRole('button', { name: 'Next' }).click()
  await page.getByTestId('import-summary').filter({ hasText: '1 to create, 1 to update, 1 with errors' }).waitFor()
  await page.getByText('Item group "NOPE" does not exist').waitFor()
  await page.getByText('Stock item: "misschien" is not yes or no').waitFor()
  await page.getByRole('button', { name: 'Import 2 items' }).click()
  await page.getByTestId('import-progress').filter({ hasText: 'Done: 2 sent, 0 refused' }).waitFor()

  const outbox = await api(page, '/outbox')
  const items = outbox.entries.filter((e) => e.action === 'items')
  assert.equal(items.length, 2)
  assert.deepEqual(items.map((e) => e.method).sort(), ['POST', 'PUT'])
})

test('the database page lists tables and the outbox, and clears and re-syncs a table', async () => {
  await page.goto(`${server.url}/mng?division=${division}`)
  await page.getByRole('heading', { name: 'Local tables' }).waitFor()
  await page.getByTestId('outbox-entry').first().waitFor()
  const before = (await api(page, '/sync')).tables.projects.rows
  assert.ok(before > 0)
  await page.getByRole('button', { name: 'Clear and sync: Projects' }).click()
  await page.getByRole('dialog').getByRole('button', { name: 'Yes' }).click()
  await page.getByText('Sync of Projects started.').waitFor()
  const after = await syncSettled(page)
  assert.equal(after.tables.projects.rows, before)
  assert.deepEqual(errors, [])
})

test('Dutch from the browser until the user’s own choice applies; a handheld gets ESM and no cog', async () => {
  const nl = await browser.newContext({ locale: 'nl-NL', viewport: { width: 390, height: 800 }, userAgent: MOBILE_UA })
  const p = await nl.newPage()
  const nlErrors = watchConsole(p)
  await p.goto(server.url + '/')
  await p.getByRole('button', { name: 'Inloggen met Exact Online' }).waitFor()
  assert.equal(await p.evaluate(() => document.documentElement.lang), 'nl')
  await signIn(p, server.url, { button: 'Inloggen met Exact Online' })
  // the demo user chose English in Account Settings above: that wins over the browser
  await p.getByPlaceholder('Shop order (SO 24005), item code, barcode or description').waitFor()
  await p.getByRole('banner').getByText('ESM', { exact: true }).waitFor()
  assert.equal(await p.getByRole('button', { name: 'Settings' }).count(), 0)
  await p.getByRole('button', { name: 'Logout' }).click()
  await p.getByRole('dialog', { name: 'Are you sure you want to logout?' }).getByRole('button', { name: 'Yes' }).click()
  await p.waitForURL(server.url + '/')
  assert.deepEqual(nlErrors, [])
  await nl.close()
})
