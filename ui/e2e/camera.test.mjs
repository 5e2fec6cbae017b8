// Camera scanning in a browser without its own barcode decoder (Chromium on Linux has no
// BarcodeDetector, like Safari on iOS and Firefox): the camera is a fake one filmed from the item
// label this app prints (its PDF rendered with pdftoppm), so the bundled WebAssembly decoder must
// be fetched from this server, allowed by the page's policy, and read the label's Code 128.
import { after, before, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MOBILE_UA, simulatorRows, syncedDemo, watchConsole } from './flows.mjs'
import { launchBrowser } from './server.mjs'

const VIEW = { width: 390, height: 844 }
const FRAME = { width: 640, height: 480 }
// the item label type that carries the item code as a Code 128: 45 × 20 mm, its first slot at 0,0
const LABEL = { type: 'electrical-x4', widthMm: 45, heightMm: 20 }

let server
let signedIn
let browser
let dir

before(async () => {
  ;({ server, browser: signedIn } = await syncedDemo({ viewport: VIEW, locale: 'en-GB' }))
  dir = mkdtempSync(join(tmpdir(), 'esm-e2e-camera-'))
})

after(async () => {
  await browser?.close()
  await signedIn?.close()
  await server?.stop()
  if (dir) rmSync(dir, { recursive: true, force: true })
})

/** The first slot of the label sheet as a grey image, 600 px wide (about 13 px a millimetre). */
function renderLabel(pdf) {
  const file = join(dir, 'label.pdf')
  writeFileSync(file, pdf)
  const width = 600
  const height = Math.round((width * LABEL.heightMm) / LABEL.widthMm)
  const dpi = String(Math.round((width / LABEL.widthMm) * 25.4))
  execFileSync('pdftoppm', [
    '-gray',
    '-singlefile',
    '-f',
    '1',
    '-l',
    '1',
    '-r',
    dpi,
    '-x',
    '0',
    '-y',
    '0',
    '-W',
    String(width),
    '-H',
    String(height),
    file,
    join(dir, 'label'),
  ])
  const pgm = readFileSync(join(dir, 'label.pgm'))
  const head = /^P5\s+(\d+)\s+(\d+)\s+255\s/.exec(pgm.subarray(0, 40).toString('latin1'))
  assert.ok(head, 'pdftoppm wrote an 8-bit PGM')
  return { width: Number(head[1]), height: Number(head[2]), pixels: pgm.subarray(head[0].length) }
}

/** A Y4M video (what Chromium's fake camera plays) of the image centred on white, a few frames long. */
function y4m(image) {
  const { width, height } = FRAME
  const luma = Buffer.alloc(width * height, 255)
  const left = Math.floor((width - image.width) / 2)
  const top = Math.floor((height - image.height) / 2)
  for (let y = 0; y < image.height; y++) image.pixels.copy(luma, (top + y) * width + left, y * image.width, (y + 1) * image.width)
  // 4:2:0: no colour, so both chroma planes sit at the middle
  const chroma = Buffer.alloc((width / 2) * (height / 2) * 2, 128)
  const frame = Buffer.concat([Buffer.from('FRAME\n'), luma, chroma])
  return Buffer.concat([Buffer.from(`YUV4MPEG2 W${width} H${height} F10:1 Ip A1:1 C420jpeg\n`), ...Array(10).fill(frame)])
}

test("the camera reads the item's own label with the bundled decoder, fetched from this server", async () => {
  const context = signedIn.contexts()[0]
  const page = context.pages()[0]
  const division = new URL(page.url()).searchParams.get('division')
  const item = (await simulatorRows(server, division, 'logistics/Items')).find((i) => /^[A-Za-z0-9-]{3,}$/.test(i.Code ?? ''))
  assert.ok(item, 'the demo has an item with a plain code')
  const res = await page.request.post(new URL('/api/v1/labels', server.url).href, {
    data: { source: 'item_direct', ids: [{ id: item.ID, print_count: 1 }], type: LABEL.type },
  })
  assert.equal(res.status(), 200, await res.text())
  assert.equal(res.headers()['content-type'], 'application/pdf')
  const video = join(dir, 'camera.y4m')
  writeFileSync(video, y4m(renderLabel(await res.body())))

  // a browser whose camera films the label, signed in as the first one was
  browser = await launchBrowser({
    args: ['--use-fake-ui-for-media-stream', '--use-fake-device-for-media-stream', `--use-file-for-fake-video-capture=${video}`],
  })
  const phone = await browser.newContext({
    viewport: VIEW,
    userAgent: MOBILE_UA,
    hasTouch: true,
    isMobile: true,
    locale: 'en-GB',
    storageState: await context.storageState(),
  })
  const tab = await phone.newPage()
  const errors = watchConsole(tab)
  const requests = []
  tab.on('request', (r) => requests.push(r.url()))
  const wasm = []
  tab.on('response', (r) => {
    if (new URL(r.url()).pathname.endsWith('.wasm')) wasm.push({ status: r.status(), type: r.headers()['content-type'] })
  })

  await tab.goto(`${server.url}/scanning?division=${division}`)
  await tab.locator('#scan-input').waitFor()
  assert.equal(await tab.evaluate(() => typeof globalThis.BarcodeDetector), 'undefined', 'this Chromium has no decoder of its own')
  assert.equal(await tab.getByTestId('camera-note').count(), 0, 'no note says the camera cannot be used')
  const camera = tab.getByRole('button', { name: 'Camera', exact: true })
  assert.equal(await camera.isEnabled(), true)
  await camera.tap()

  await tab.getByTestId('item-card').waitFor({ timeout: 60_000 })
  assert.equal((await tab.getByTestId('item-code').innerText()).trim(), item.Code)
  assert.equal(await tab.getByRole('button', { name: 'Close the camera' }).count(), 0, 'the camera closed after the scan')
  assert.deepEqual(wasm, [{ status: 200, type: 'application/wasm' }], 'the decoder came from this server once')
  const origin = new URL(server.url).origin
  assert.deepEqual(
    requests.filter((u) => !u.startsWith(origin) && !u.startsWith('data:') && !u.startsWith('blob:')),
    [],
    'nothing was fetched from another origin (no CDN)',
  )
  assert.deepEqual(errors, [])
  await phone.close()
})
