// A real IPP label printer for the end-to-end specs: CUPS' ippeveprinter on a loopback port,
// keeping every document it is sent. ippeveprinter registers itself over DNS-SD, so the system
// D-Bus and avahi are started when they are not running (as the Rust printing tests do).
import { spawn, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, openSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { createConnection, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const DIRS = ['/usr/sbin', '/usr/bin', '/sbin', '/bin', '/usr/local/bin', '/usr/local/sbin']

/** The tool's path, or null when it is not installed. */
export function tool(name) {
  return DIRS.map((d) => join(d, name)).find((p) => existsSync(p)) ?? null
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

function canConnect(options) {
  return new Promise((resolve) => {
    const socket = createConnection(options)
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

function avahiRunning(dbusSend) {
  const out = spawnSync(dbusSend, ['--system', '--print-reply', '--dest=org.freedesktop.Avahi', '/', 'org.freedesktop.Avahi.Server.GetState'], {
    encoding: 'utf8',
  })
  // state 2 is "running": ippeveprinter gives up while avahi still registers its host name
  return `${out.stdout}${out.stderr}`.includes('int32 2')
}

async function until(check, seconds) {
  const end = Date.now() + seconds * 1000
  while (Date.now() < end) {
    if (await check()) return true
    await sleep(200)
  }
  return false
}

/** Whether a printer can be started here: the tools are installed and DNS-SD runs (started if need be). */
export async function printersAvailable() {
  const [ipp, dbus, avahi, dbusSend] = ['ippeveprinter', 'dbus-daemon', 'avahi-daemon', 'dbus-send'].map(tool)
  if (!ipp || !dbus || !avahi || !dbusSend) return false
  const socket = '/run/dbus/system_bus_socket'
  // the socket file can outlive its daemon (a machine restored from a snapshot): connect to tell
  if (!(await canConnect({ path: socket }))) {
    rmSync(socket, { force: true })
    rmSync('/run/dbus/pid', { force: true })
    mkdirSync('/run/dbus', { recursive: true })
    if (spawnSync(dbus, ['--system', '--fork']).status !== 0) throw new Error('dbus-daemon --system did not start')
  }
  if (!(await until(() => avahiRunning(dbusSend), 2))) {
    rmSync('/run/avahi-daemon/pid', { force: true })
    spawnSync(avahi, ['--no-chroot', '--no-drop-root', '--no-rlimits', '-D'])
    if (!(await until(() => avahiRunning(dbusSend), 20))) throw new Error('avahi-daemon did not start')
  }
  return true
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

function files(dir) {
  if (!existsSync(dir)) return []
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : [path]
  })
}

/**
 * Starts an IPP Everywhere printer that takes PDF, named `name`. Its `uri` goes into the server's
 * `[[printers]]`; `documents()` lists the PDFs it received.
 */
export async function startPrinter(name) {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'esm-e2e-printer-'))
  const spool = join(dir, 'spool')
  mkdirSync(spool)
  const log = join(dir, 'printer.log')
  const child = spawn(
    tool('ippeveprinter'),
    ['-p', String(port), '-n', 'localhost', '-k', '-f', 'application/pdf', '-m', 'ESM Test Label', '-d', spool, name],
    {
      stdio: ['ignore', 'ignore', openSync(log, 'w')],
    },
  )
  const listening = await until(() => child.exitCode === null && canConnect({ host: '127.0.0.1', port }), 20)
  if (!listening) {
    child.kill()
    throw new Error(`ippeveprinter ${name} did not listen on ${port}: ${readFileSync(log, 'utf8')}`)
  }
  return {
    name,
    uri: `ipp://127.0.0.1:${port}/ipp/print`,
    documents: () => files(spool).filter((p) => p.endsWith('.pdf')),
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM')
        await new Promise((r) => (child.exitCode !== null ? r() : child.once('exit', r)))
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
