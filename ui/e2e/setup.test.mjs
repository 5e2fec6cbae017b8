// First run: a server with no Exact Online app shows the setup on its Home page; a wrong secret
// fails the test sign-in and saves nothing; the right one is saved to the settings file in the
// data directory (the config file is left alone), the server restarts with it on the same
// address, and the usual sign-in works.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { launchBrowser, startServer } from './server.mjs'

let sim
let server
let browser
let configDir
const CONFIG = '# the admin keeps this line\n[sync]\ninterval_minutes = 0\n'

/** A free loopback port: the restarted server must come back on the same one. */
function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address()
      probe.close(() => resolve(port))
    })
  })
}

async function setupCode() {
  for (let i = 0; i < 100 && !server.lines['Setup code']; i++) await new Promise((r) => setTimeout(r, 100))
  const code = /^[A-Z0-9]{4}-[A-Z0-9]{4}-[A-Z0-9]{4}/.exec(server.lines['Setup code'] ?? '')
  assert.ok(code, 'the console shows the setup code')
  return code[0]
}

before(async () => {
  sim = await startServer('sim', ['--port', '0', '--no-rate-limits'], { readyLine: 'Simulator' })
  configDir = mkdtempSync(join(tmpdir(), 'esm-e2e-config-'))
  writeFileSync(join(configDir, 'config.toml'), CONFIG)
  const port = await freePort()
  server = await startServer('serve', [], {
    listen: `127.0.0.1:${port}`,
    beforeArgs: ['--config', join(configDir, 'config.toml')],
    env: { ESM_PROVIDER__BASE_URL: sim.url },
  })
  browser = await launchBrowser()
})

after(async () => {
  await browser?.close()
  await server?.stop()
  await sim?.stop()
  if (configDir) rmSync(configDir, { recursive: true, force: true })
})

async function fillSetup(page, code, secret) {
  await page.getByLabel('Setup code').fill(code)
  await page.getByLabel('Client id').fill('demo-client')
  await page.getByLabel('Client secret').fill(secret)
  await page.getByRole('button', { name: 'Test with a sign-in at Exact Online' }).click()
  await page.getByRole('button', { name: 'Approve' }).click()
  await page.waitForURL(/\/callback\?/)
}

test('the Home page sets up the Exact Online app, tested by a sign-in, and the server restarts with it', async () => {
  const page = await browser.newPage({ viewport: { width: 390, height: 844 } })
  const errors = []
  page.on('pageerror', (e) => errors.push(String(e)))
  await page.goto(server.url + '/')
  await page.getByRole('heading', { name: 'Set up Stock Manager' }).waitFor()
  assert.equal(await page.getByTestId('setup-redirect').innerText(), server.url + '/callback')
  // the configured host (here the simulator) is preselected beside Exact's country hosts
  assert.equal(await page.getByLabel('Exact Online country').inputValue(), sim.url.replace(/\/$/, ''))
  const code = await setupCode()

  // a wrong code stays on the form with the server's message
  await page.getByLabel('Setup code').fill('AAAA-AAAA-AAAA')
  await page.getByLabel('Client id').fill('demo-client')
  await page.getByLabel('Client secret').fill('x')
  await page.getByRole('button', { name: 'Test with a sign-in at Exact Online' }).click()
  await page.getByRole('alert').filter({ hasText: 'setup code is wrong' }).waitFor()

  // a wrong secret: Exact signs in, the exchange fails, nothing is written
  await fillSetup(page, code, 'not-the-secret')
  await page.getByRole('heading', { name: 'The setup did not work' }).waitFor()
  await page.getByText('did not accept this client id and secret').waitFor()
  assert.equal(existsSync(join(server.dataDir, 'settings.toml')), false)

  // the right secret: saved, the server restarts on the same address, then the usual sign-in
  await page.getByRole('link', { name: 'Back to the start page' }).click()
  await fillSetup(page, code, 'demo-secret')
  await page.getByRole('heading', { name: 'Stock Manager is connected to Exact Online' }).waitFor()
  const written = readFileSync(join(server.dataDir, 'settings.toml'), 'utf8')
  assert.match(written, /client_id = "demo-client"/)
  assert.match(written, /\[admin\]\nusers = \["[^"]+"\]/)
  assert.equal(readFileSync(join(configDir, 'config.toml'), 'utf8'), CONFIG)
  await page.getByRole('button', { name: 'Sign in with Exact Online' }).click({ timeout: 30_000 })
  await page.getByRole('button', { name: 'Approve' }).click()
  await page.waitForURL(/\/(license-code|dashboard)\?division=\d+/)
  const setup = await page.request.get(server.url + '/api/v1/setup')
  assert.deepEqual(await setup.json(), { needed: false })
  assert.deepEqual(errors, [])
  await page.close()
})
