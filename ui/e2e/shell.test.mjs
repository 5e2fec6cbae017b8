import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { launchBrowser, startServer } from './server.mjs'

let server
let browser

before(async () => {
  server = await startServer('serve')
  browser = await launchBrowser()
})

after(async () => {
  await browser?.close()
  await server?.stop()
})

test('the home page has the title and reports the server healthy', async () => {
  const page = await browser.newPage()
  const errors = []
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()))
  await page.goto(server.url + '/')
  assert.equal(await page.title(), 'Stock Manager')
  await page.getByTestId('health').waitFor()
  assert.match(await page.getByTestId('health').innerText(), /ok/)
  assert.deepEqual(errors, [])
  await page.close()
})

test('a narrow screen shows ESM', async () => {
  const page = await browser.newPage({ viewport: { width: 400, height: 800 } })
  await page.goto(server.url + '/scanning?division=1')
  await page.getByText('ESM', { exact: true }).waitFor()
  await page.close()
})
