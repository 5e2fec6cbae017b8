// Screenshots of every screen at desktop and phone size, for the README and review:
// `npm run screenshots` (after `npm run build`; ESM_BIN picks the binary, as for the e2e specs).
// Writes docs/screenshots/{screen}-{desktop|phone}.png and copies them to test-results/.
import { cpSync, mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { signIn } from './flows.mjs'
import { launchBrowser, startServer } from './server.mjs'
import { SIZES, walkFirstRun, walkScreens } from './walk.mjs'

const OUT = fileURLToPath(new URL('../../docs/screenshots/', import.meta.url))
const ARTEFACTS = fileURLToPath(new URL('../test-results/screenshots/', import.meta.url))

async function shoot(page, name, size) {
  await page.waitForLoadState('networkidle').catch(() => {})
  await page.waitForTimeout(300)
  await page.screenshot({ path: `${OUT}${name}-${size}.png`, fullPage: size === 'phone' })
  console.log(`${name}-${size}.png`)
}

async function main() {
  mkdirSync(OUT, { recursive: true })
  const browser = await launchBrowser()
  await walkFirstRun(browser, shoot)
  const server = await startServer('demo')
  try {
    for (const size of Object.keys(SIZES)) {
      await walkScreens(browser, server, size, (page, name) => shoot(page, name, size))
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
