// The barcode decoder behind the camera: the browser's own `BarcodeDetector` where it has one
// (Chrome on Android, Edge, Chrome on macOS), else the bundled WebAssembly one (Safari on iOS,
// Firefox, desktop Chromium without it). The bundled one is fetched only when such a browser opens
// the camera, and its .wasm comes from this server: the factory LAN has no internet, and the page's
// policy allows no other origin anyway.

/** What labels and suppliers print: the formats the camera looks for. */
export const CAMERA_FORMATS = ['code_128', 'ean_13', 'ean_8', 'upc_a', 'upc_e', 'itf', 'code_39', 'qr_code', 'data_matrix']

export interface Detector {
  detect(source: HTMLVideoElement): Promise<{ rawValue: string }[]>
}

export interface DetectorClass {
  new (opts?: { formats?: string[] }): Detector
  getSupportedFormats?(): Promise<readonly string[]>
}

function nativeDetector(): DetectorClass | null {
  return (globalThis as { BarcodeDetector?: DetectorClass }).BarcodeDetector ?? null
}

/** Whether the browser's own decoder reads every format the labels use (some expose the class with none). */
async function nativeReadsAll(native: DetectorClass): Promise<boolean> {
  try {
    const supported = new Set((await native.getSupportedFormats?.()) ?? [])
    return CAMERA_FORMATS.every((f) => supported.has(f))
  } catch {
    return false
  }
}

/** The bundled decoder, its .wasm fetched and compiled before it is handed out so a failure shows at once. */
async function importBundled(): Promise<DetectorClass> {
  const [{ BarcodeDetector, prepareZXingModule, purgeZXingModule }, { default: wasmUrl }] = await Promise.all([
    import('barcode-detector/ponyfill'),
    import('zxing-wasm/reader/zxing_reader.wasm?url'),
  ])
  // the package's default is a CDN URL, unreachable on the factory LAN and refused by the CSP
  const overrides = { locateFile: (path: string, prefix: string) => (path.endsWith('.wasm') ? wasmUrl : prefix + path) }
  try {
    await prepareZXingModule({ overrides, fireImmediately: true })
  } catch (e) {
    // the package keeps the failed module: drop it so the next try fetches again
    purgeZXingModule()
    throw e
  }
  return BarcodeDetector as DetectorClass
}

let bundled: Promise<DetectorClass> | null = null

function loadBundled(): Promise<DetectorClass> {
  if (!bundled) {
    bundled = importBundled()
    bundled.catch(() => {
      bundled = null
    })
  }
  return bundled
}

/** The decoder class to use here: the browser's own when it reads our formats, else the bundled one. */
export async function detectorClass(): Promise<DetectorClass> {
  const native = nativeDetector()
  if (native && (await nativeReadsAll(native))) return native
  return loadBundled()
}
