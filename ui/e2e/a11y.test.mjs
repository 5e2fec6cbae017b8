// Accessibility: every screen at desktop and handheld size checked by axe-core (WCAG 2.1 A
// and AA: contrast, names and labels, roles), the skip link, and focus coming back to the
// control that opened a dialog.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { activate, signIn, syncSettled } from './flows.mjs'
import { launchBrowser, startServer } from './server.mjs'
import { SIZES, walkFirstRun, walkScreens } from './walk.mjs'

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

let server
let browser

before(async () => {
  server = await startServer('demo')
  browser = await launchBrowser()
})

after(async () => {
  await browser?.close()
  await server?.stop()
})

/** The WCAG 2.1 A/AA violations axe finds on the page as it is now: one line per rule and
 * failure, with how many elements fail so and the first of them. */
async function violations(page) {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ content: AXE })
  return page.evaluate(async () => {
    // @ts-expect-error axe is the script added above
    const result = await window.axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
      resultTypes: ['violations'],
    })
    const lines = new Map()
    for (const v of result.violations)
      for (const n of v.nodes) {
        // contrast failures name their colours: one line per pair, not per row of a list
        const why = (n.failureSummary?.split('\n')[1]?.trim() ?? v.help).replace(/ of [\d.]+ \(/, ' (').replace(/, font size.*$/, '')
        const key = `${v.id}: ${why}`
        const seen = lines.get(key)
        if (seen) seen.count++
        else lines.set(key, { count: 1, first: n.target.join(' ') })
      }
    return [...lines].map(([key, { count, first }]) => `${key} — ${count} element(s), first ${first}`)
  })
}

async function auditWalk(walk) {
  const found = []
  await walk(async (page, name, size) => {
    await page.waitForLoadState('networkidle').catch(() => {})
    for (const line of await violations(page)) found.push(`${name}${size ? ` (${size})` : ''}: ${line}`)
  })
  assert.deepEqual(found, [], `axe found:\n${found.join('\n')}`)
}

test('the first-run setup page passes axe at both sizes', async () => {
  await auditWalk((seen) => walkFirstRun(browser, seen))
})

for (const size of Object.keys(SIZES)) {
  test(`every screen passes axe at ${size} size`, async () => {
    await auditWalk((seen) => walkScreens(browser, server, size, seen))
  })
}

test('the skip link is the first stop of the keyboard and moves focus to the screen', async () => {
  const context = await browser.newContext({ ...SIZES.desktop, locale: 'en-GB' })
  const page = await context.newPage()
  await signIn(page, server.url)
  await activate(page, server.url, server.lines['Licence code'])
  await syncSettled(page)
  await page.keyboard.press('Tab')
  const skip = page.getByRole('link', { name: 'Skip to content' })
  assert.ok(await skip.evaluate((el) => el === document.activeElement), 'the first Tab reaches the skip link')
  assert.ok(await skip.isVisible(), 'the skip link shows when focused')
  await page.keyboard.press('Enter')
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'main')
  // the next Tab goes into the screen, past the header
  await page.keyboard.press('Tab')
  assert.ok(await page.evaluate(() => !!document.activeElement?.closest('#main')), 'focus moved into the screen')
  await context.close()
})

/** Waits (briefly: the focus moves just after the dialog leaves) for the focus to be on `selector`. */
async function focusOn(page, selector, what) {
  try {
    await page.waitForFunction((s) => document.activeElement?.matches(s), selector, { timeout: 3_000 })
  } catch {
    const now = await page.evaluate(() => document.activeElement?.outerHTML.slice(0, 100))
    assert.fail(`the focus is not back on ${what} but on ${now}`)
  }
}

test('closing a dialog returns focus to the control that opened it', async () => {
  const context = await browser.newContext({ ...SIZES.desktop, locale: 'en-GB' })
  const page = await context.newPage()
  await signIn(page, server.url)
  const division = new URL(page.url()).searchParams.get('division')

  // the logout question, answered No with Escape
  await page.getByRole('button', { name: 'Settings' }).click()
  await page.getByRole('menuitem', { name: 'Logout' }).click()
  await page.getByRole('dialog').waitFor()
  await page.keyboard.press('Escape')
  await page.getByRole('dialog').waitFor({ state: 'detached' })
  await focusOn(page, '[aria-label=Settings]', 'the settings cog')

  // a shop order's window on Planning, closed with Escape: back on its bar
  await page.goto(`${server.url}/planning?division=${division}`)
  const bar = page.locator('[data-testid^=bar-]').first()
  await bar.waitFor()
  const id = await bar.getAttribute('data-testid')
  await bar.focus()
  await page.keyboard.press('Enter')
  await page.getByTestId('shop-order-modal').waitFor()
  await page.keyboard.press('Escape')
  await page.getByTestId('shop-order-modal').waitFor({ state: 'detached' })
  await focusOn(page, `[data-testid="${id}"]`, 'the bar that opened the window')
  await context.close()
})
