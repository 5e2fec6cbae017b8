// Starts the release binary for an end-to-end spec on a free loopback port with a fresh data
// directory, and launches Debian's Chromium through playwright-core.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { chromium } from 'playwright-core'

const BIN = process.env.ESM_BIN ?? new URL('../../target/release/stock-manager', import.meta.url).pathname

/**
 * Starts `stock-manager <command>` and resolves once it printed its `URL:` line. `listen` and
 * `env` change where it listens and its environment; `beforeArgs` go before the command
 * (`--config FILE`). `lines` keeps every `Name: value` line printed, the latest of each.
 *
 * A demo's simulator leaves out the provider's 60 calls a minute unless `rateLimits` is set:
 * most specs are about screens, and the budget only made them wait a minute at a time (the
 * Rust tests hold the limiter to it, and the specs about syncs and outages keep it on).
 */
export async function startServer(
  command = 'serve',
  extraArgs = [],
  { listen = '127.0.0.1:0', env = {}, beforeArgs = [], readyLine = 'URL', rateLimits = false } = {},
) {
  const dataDir = mkdtempSync(join(tmpdir(), 'esm-e2e-'))
  const demoArgs = command === 'demo' && !rateLimits ? ['--no-rate-limits'] : []
  const args = command === 'sim' ? [command, ...extraArgs] : [...beforeArgs, command, '--listen', listen, '--data-dir', dataDir, ...demoArgs, ...extraArgs]
  const child = spawn(BIN, args, {
    env: { ...process.env, ESM_MDNS__ENABLED: 'false', RUST_LOG: process.env.RUST_LOG ?? 'warn', ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const lines = {}
  const rl = createInterface({ input: child.stdout })
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not print its ${readyLine} within 60 s`)), 60_000)
    child.on('exit', (code) => reject(new Error(`server exited early with ${code}`)))
    rl.on('line', (line) => {
      const m = /^([A-Za-z ]+): (.*)$/.exec(line)
      if (m) lines[m[1]] = m[2]
      if (m && m[1] === readyLine) {
        clearTimeout(timer)
        resolve(m[2])
      }
    })
  })
  return {
    url,
    lines,
    dataDir,
    async stop() {
      child.kill('SIGTERM')
      await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)))
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Debian's Chromium, headless; `args` adds switches (a fake camera, say). */
export async function launchBrowser({ args = [] } = {}) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      ...args,
    ],
  })
}
