// Screenshots of every screen at desktop and phone size, for the README and review:
// `npm run screenshots` (after `npm run build`; ESM_BIN picks the binary, as for the e2e specs).
// Writes docs/screenshots/{screen}-{desktop|phone}.png and copies them to test-results/.
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { activate, api, MOBILE_UA, signIn, syncSettled } from './flows.mjs'
import { launchBrowser, startServer } from './server.mjs'

const OUT = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url))
const ARTEFACTS = fileURLToPath(new URL('../test-results/screenshots/', import.meta.url))

const SIZES = {
  desktop: { viewport: { width: 1440, height: 900 } },
  phone: { viewport: { width: 390, height: 844 }, userAgent: MOBILE_UA, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
}

const SAMPLE_CSV = [
  'Artikelcode;Omschrijving;Artikelgroep;Voorraadartikel;Kostprijs',
  'NEW-0001;Montageplaat RVS 200x100;DRW;ja;12,50',
  'NEW-0002;;DRW;ja;3,10',
  'NEW-0003;Afstandsbus M8;ONBEKEND;misschien;1,05',
].join('\n')

async function shoot(page, name, size) {
  await page.waitForLoadState('networkidle').catch(() => {})
  await page.waitForTimeout(300)
  await page.screenshot({ path: `${OUT}${name}-${size}.png`, fullPage: size === 'phone' })
  console.log(`${name}-${size}.png`)
}

/** The screens of the shop floor: planning (and an order's window), materials, purchases,
 * receipts, transfers, hours and scanning (with an item's card). */
async function shopFloor(page, go, size) {
  await go('/planning')
  await page.getByTestId('planning-count').waitFor()
  const bar = page.locator('[data-testid^=bar-]').first()
  await bar.waitFor()
  await shoot(page, 'planning', size)
  await bar.click()
  await page.getByTestId('shop-order-modal').getByTestId('modal-plans').waitFor()
  await shoot(page, 'planning-shop-order', size)
  await page.keyboard.press('Escape')

  await go('/materials')
  await page.getByTestId('materials-summary').waitFor({ timeout: 60_000 })
  await page.getByTestId('materials-live-reading').waitFor({ state: 'detached', timeout: 120_000 })
  await shoot(page, 'materials', size)

  await go('/purchaseOverview')
  await page.getByTestId('purchases-summary').waitFor({ timeout: 60_000 })
  await shoot(page, 'purchases', size)

  await go('/receipts')
  await page.locator('#receipts-list').waitFor()
  await shoot(page, 'receipts', size)

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
  await shoot(page, 'transfers', size)

  await go('/hours')
  // the office gets the week, a handheld the operator mode
  if (size === 'desktop') await page.getByTestId('week-title').waitFor()
  else await page.getByRole('tablist').waitFor()
  await shoot(page, 'hours', size)

  await go('/scanning')
  await page.locator('#scan-input').waitFor()
  await shoot(page, 'scanning', size)
  if (item) {
    await page.locator('#scan-input').focus()
    await page.keyboard.type(item.Code)
    await page.keyboard.press('Enter')
    await page.getByTestId('item-card').waitFor()
    await page.locator('[data-testid=item-stock] tr').first().waitFor()
    await shoot(page, 'scanning-item', size)
  }
}

/** The first run's setup page: a server started with no Exact Online app. */
async function firstRun(browser) {
  const dir = mkdtempSync(join(tmpdir(), 'esm-screens-'))
  writeFileSync(join(dir, 'config.toml'), '[sync]\ninterval_minutes = 0\n')
  const server = await startServer('serve', [], { beforeArgs: ['--config', join(dir, 'config.toml')] })
  try {
    for (const [size, options] of Object.entries(SIZES)) {
      const context = await browser.newContext({ ...options, locale: 'en-GB' })
      const page = await context.newPage()
      await page.goto(server.url + '/')
      await page.getByRole('heading', { name: 'Set up Stock Manager' }).waitFor()
      await shoot(page, 'first-run', size)
      await context.close()
    }
  } finally {
    await server.stop()
    rmSync(dir, { recursive: true, force: true })
  }
}

async function main() {
  mkdirSync(OUT, { recursive: true })
  const browser = await launchBrowser()
  await firstRun(browser)
  const server = await startServer('demo')
  try {
    for (const [size, options] of Object.entries(SIZES)) {
      const context = await browser.newContext({ ...options, locale: 'en-GB' })
      const page = await context.newPage()
      await page.goto(server.url + '/')
      await page.getByRole('button', { name: 'Sign in with Exact Online' }).waitFor()
      await shoot(page, 'home', size)

      await signIn(page, server.url)
      if (/license-code/.test(page.url())) await shoot(page, 'licence', size)
      await activate(page, server.url, server.lines['Licence code'])
      if (size === 'desktop') {
        await page.getByRole('button', { name: 'Sync Data' }).click()
        await page.getByText(/^Refreshing /).first().waitFor()
        await shoot(page, 'sync-toasts', size)
      }
      await syncSettled(page)
      const division = new URL(page.url()).searchParams.get('division')
      const go = async (path) => page.goto(`${server.url}${path}?division=${division}`)

      await go('/dashboard')
      await page.getByTestId('stock-rows').waitFor()
      await page.waitForFunction(() => !document.querySelector('[data-testid=stock-count]')?.textContent?.includes('…'))
      await shoot(page, 'dashboard', size)
      await page.getByRole('searchbox').fill('Moer')
      await page.waitForTimeout(800)
      await shoot(page, 'dashboard-search', size)

      await go('/globalSettings')
      await page.getByRole('heading', { name: 'Global Settings' }).waitFor()
      await shoot(page, 'global-settings', size)

      await go('/accountSettings')
      await page.getByRole('heading', { name: 'Account Settings' }).waitFor()
      await shoot(page, 'account-settings', size)

      await go('/importItems')
      await page.getByRole('heading', { name: 'Import Items' }).waitFor()
      await shoot(page, 'import-items', size)
      const csv = `${ARTEFACTS}sample-items.csv`
      mkdirSync(ARTEFACTS, { recursive: true })
      writeFileSync(csv, SAMPLE_CSV)
      await page.locator('input[type=file]').setInputFiles(csv)
      await page.getByText('Choose which column').waitFor()
      await shoot(page, 'import-items-mapping', size)
      await page.getByRole('button', { name: 'Next' }).click()
      await page.getByTestId('import-summary').waitFor()
      await shoot(page, 'import-items-check', size)

      await go('/mng')
      await page.getByRole('heading', { name: 'Local tables' }).waitFor()
      await shoot(page, 'management', size)

      await shopFloor(page, go, size)

      if (size === 'desktop') {
        await go('/dashboard')
        await page.getByRole('button', { name: 'Settings' }).click()
        await shoot(page, 'settings-menu', size)
        await page.getByRole('menuitem', { name: 'Logout' }).click()
        await page.getByRole('dialog').waitFor()
        await shoot(page, 'logout-dialog', size)
      }
      await context.close()
    }
    // the Dutch interface
    const context = await browser.newContext({ ...SIZES.desktop, locale: 'nl-NL' })
    const page = await context.newPage()
    await signIn(page, server.url, { button: 'Inloggen met Exact Online' })
    await page.getByTestId('stock-rows').waitFor()
    await page.waitForTimeout(500)
    await shoot(page, 'dashboard-nl', 'desktop')
    await context.close()
  } finally {
    await browser.close()
    await server.stop()
  }
  mkdirSync(ARTEFACTS, { recursive: true })
  cpSync(OUT, ARTEFACTS, { recursive: true })
}

await main()
