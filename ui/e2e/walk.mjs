// A walk through every screen of the demo, shared by the screenshot script and the
// accessibility test: each calls `seen(page, name)` when a screen is ready to look at.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { activate, api, MOBILE_UA, signIn, syncSettled } from './flows.mjs'
import { startServer } from './server.mjs'

export const SIZES = {
  desktop: { viewport: { width: 1440, height: 900 } },
  phone: { viewport: { width: 390, height: 844 }, userAgent: MOBILE_UA, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
}

const SAMPLE_CSV = [
  'Artikelcode;Omschrijving;Artikelgroep;Voorraadartikel;Kostprijs',
  'NEW-0001;Montageplaat RVS 200x100;DRW;ja;12,50',
  'NEW-0002;;DRW;ja;3,10',
  'NEW-0003;Afstandsbus M8;ONBEKEND;misschien;1,05',
].join('\n')

/** The screens of the shop floor: planning (and an order's window), materials, purchases,
 * receipts, transfers, hours, counts (with one open) and scanning (with an item's card). */
async function shopFloor(page, go, size, seen) {
  await go('/planning')
  await page.getByTestId('planning-count').waitFor()
  const bar = page.locator('[data-testid^=bar-]').first()
  await bar.waitFor()
  await seen(page, 'planning')
  await bar.click()
  await page.getByTestId('shop-order-modal').getByTestId('modal-plans').waitFor()
  await seen(page, 'planning-shop-order')
  await page.keyboard.press('Escape')

  await go('/materials')
  await page.getByTestId('materials-summary').waitFor({ timeout: 60_000 })
  await seen(page, 'materials')

  await go('/purchaseOverview')
  await page.getByTestId('purchases-summary').waitFor({ timeout: 60_000 })
  await seen(page, 'purchases')

  await go('/receipts')
  await page.locator('#receipts-list').waitFor()
  await seen(page, 'receipts')

  // an item in stock at a storage location, for Transfers and Scanning
  const [stock] = await api(page, '/db/storageLocationStockPositions?Stock=gt.2&limit=1')
  const [item] = stock ? await api(page, `/db/items?ID=eq.${stock.Item}&limit=1`) : []

  await go('/transfers')
  await page.getByLabel('Item').waitFor()
  if (item) {
    await page.getByLabel('Item').fill(item.Code)
    await page.getByLabel('Item').press('Enter')
    await page.getByTestId('transfer-item').waitFor()
  }
  await seen(page, 'transfers')

  await go('/hours')
  // the office gets the week, a handheld the operator mode
  if (size === 'desktop') await page.getByTestId('week-title').waitFor()
  else await page.getByRole('tablist').waitFor()
  await seen(page, 'hours')

  await go('/counts')
  await page.getByRole('region', { name: 'Open counts' }).waitFor()
  await seen(page, 'counts')
  if (stock) {
    // a count of that item's storage location, open for counting beside its review
    await api(page, '/counts', {
      method: 'POST',
      body: {
        kind: 'location',
        warehouse: stock.Warehouse,
        warehouseCode: stock.WarehouseCode,
        usesLocations: true,
        location: stock.StorageLocation,
        locationCode: stock.StorageLocationCode,
      },
    })
    await go('/counts')
    await page.getByRole('region', { name: 'Open counts' }).getByRole('link').first().click()
    await page.getByTestId('review-row').first().waitFor()
    await seen(page, 'counts-count')
  }

  await go('/scanning')
  await page.locator('#scan-input').waitFor()
  await seen(page, 'scanning')
  if (item) {
    await page.locator('#scan-input').focus()
    await page.keyboard.type(item.Code)
    await page.keyboard.press('Enter')
    await page.getByTestId('item-card').waitFor()
    await page.locator('[data-testid=item-stock] tr').first().waitFor()
    await seen(page, 'scanning-item')
  }
}

/** The first run's setup page, at each size: a server started with no Exact Online app. */
export async function walkFirstRun(browser, seen) {
  const dir = mkdtempSync(join(tmpdir(), 'esm-screens-'))
  writeFileSync(join(dir, 'config.toml'), '[sync]\ninterval_minutes = 0\n')
  const server = await startServer('serve', [], { beforeArgs: ['--config', join(dir, 'config.toml')] })
  try {
    for (const [size, options] of Object.entries(SIZES)) {
      const context = await browser.newContext({ ...options, locale: 'en-GB', bypassCSP: true })
      const page = await context.newPage()
      await page.goto(server.url + '/')
      await page.getByRole('heading', { name: 'Set up Stock Manager' }).waitFor()
      await seen(page, 'first-run', size)
      await context.close()
    }
  } finally {
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Every screen of a running demo at one size, from Home and sign-in to the logout dialog.
 * The context may be fresh (the walk signs in and activates the organization). */
export async function walkScreens(browser, server, size, seen) {
  const dir = mkdtempSync(join(tmpdir(), 'esm-walk-'))
  // bypassCSP: the accessibility check injects its script into the page
  const context = await browser.newContext({ ...SIZES[size], locale: 'en-GB', bypassCSP: true })
  const page = await context.newPage()
  try {
    await page.goto(server.url + '/')
    await page.getByRole('button', { name: 'Sign in with Exact Online' }).waitFor()
    await seen(page, 'home')

    await signIn(page, server.url)
    if (/license-code/.test(page.url())) await seen(page, 'licence')
    await activate(page, server.url, server.lines['Licence code'])
    if (size === 'desktop') {
      await page.getByRole('button', { name: 'Sync Data' }).click()
      await page
        .getByText(/^Refreshing /)
        .first()
        .waitFor()
      await seen(page, 'sync-toasts')
    }
    await syncSettled(page)
    const division = new URL(page.url()).searchParams.get('division')
    const go = async (path) => page.goto(`${server.url}${path}?division=${division}`)

    await go('/dashboard')
    await page.getByTestId('stock-rows').waitFor()
    await page.waitForFunction(() => !document.querySelector('[data-testid=stock-count]')?.textContent?.includes('…'))
    await seen(page, 'dashboard')
    await page.getByRole('searchbox').fill('Moer')
    await page.waitForTimeout(800)
    await seen(page, 'dashboard-search')

    await go('/globalSettings')
    await page.getByRole('heading', { name: 'Global Settings' }).waitFor()
    await seen(page, 'global-settings')

    await go('/accountSettings')
    await page.getByRole('heading', { name: 'Account Settings' }).waitFor()
    await seen(page, 'account-settings')

    await go('/importItems')
    await page.getByRole('heading', { name: 'Import Items' }).waitFor()
    await seen(page, 'import-items')
    const csv = join(dir, 'sample-items.csv')
    writeFileSync(csv, SAMPLE_CSV)
    await page.locator('input[type=file]').setInputFiles(csv)
    await page.getByText('Choose which column').waitFor()
    await seen(page, 'import-items-mapping')
    await page.getByRole('button', { name: 'Next' }).click()
    await page.getByTestId('import-summary').waitFor()
    await seen(page, 'import-items-check')

    await go('/mng')
    await page.getByRole('heading', { name: 'Local tables' }).waitFor()
    await seen(page, 'management')

    await shopFloor(page, go, size, seen)

    if (size === 'desktop') {
      await go('/dashboard')
      await page.getByRole('button', { name: 'Settings' }).click()
      await seen(page, 'settings-menu')
      await page.getByRole('menuitem', { name: 'Logout' }).click()
      await page.getByRole('dialog').waitFor()
      await seen(page, 'logout-dialog')
    }
  } finally {
    await context.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
