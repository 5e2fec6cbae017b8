import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

// The bundled decoder, as the dynamic import sees it: a stand-in class and the wasm preparer.
const bundled = vi.hoisted(() => ({
  BarcodeDetector: class BundledDetector {},
  prepareZXingModule: vi.fn(),
  purgeZXingModule: vi.fn(),
  imported: 0,
}))
vi.mock('barcode-detector/ponyfill', () => {
  bundled.imported += 1
  return bundled
})
vi.mock('zxing-wasm/reader/zxing_reader.wasm?url', () => ({ default: '/assets/zxing_reader-test.wasm' }))

const ALL = ['code_128', 'ean_13', 'ean_8', 'upc_a', 'upc_e', 'itf', 'code_39', 'qr_code', 'data_matrix', 'pdf417']

function nativeClass(formats: string[]) {
  return class NativeDetector {
    static getSupportedFormats = () => Promise.resolve(formats)
  }
}

async function freshChooser() {
  vi.resetModules()
  return (await import('./decoder.ts')).detectorClass
}

describe('detectorClass', () => {
  beforeEach(() => {
    bundled.imported = 0
    bundled.prepareZXingModule.mockReset().mockResolvedValue({})
    bundled.purgeZXingModule.mockReset()
  })
  afterEach(() => {
    vi.unstubAllGlobals()
  })

  it("uses the browser's own decoder when it reads every label format, and loads nothing", async () => {
    const Native = nativeClass(ALL)
    vi.stubGlobal('BarcodeDetector', Native)
    const detectorClass = await freshChooser()
    expect(await detectorClass()).toBe(Native)
    expect(bundled.imported).toBe(0)
    expect(bundled.prepareZXingModule).not.toHaveBeenCalled()
  })

  it('loads the bundled decoder when the browser has none, its wasm from this server', async () => {
    vi.stubGlobal('BarcodeDetector', undefined)
    const detectorClass = await freshChooser()
    expect(await detectorClass()).toBe(bundled.BarcodeDetector)
    expect(bundled.prepareZXingModule).toHaveBeenCalledTimes(1)
    const { overrides, fireImmediately } = bundled.prepareZXingModule.mock.calls[0][0]
    expect(fireImmediately).toBe(true)
    expect(overrides.locateFile('zxing_reader.wasm', 'https://fastly.jsdelivr.net/npm/zxing-wasm/')).toBe('/assets/zxing_reader-test.wasm')
    // a second camera opening reuses the loaded decoder
    expect(await detectorClass()).toBe(bundled.BarcodeDetector)
    expect(bundled.prepareZXingModule).toHaveBeenCalledTimes(1)
  })

  it("loads the bundled decoder when the browser's own lacks a label format", async () => {
    vi.stubGlobal('BarcodeDetector', nativeClass(['qr_code', 'ean_13']))
    const detectorClass = await freshChooser()
    expect(await detectorClass()).toBe(bundled.BarcodeDetector)
  })

  it('tries again after the wasm could not be loaded', async () => {
    vi.stubGlobal('BarcodeDetector', undefined)
    bundled.prepareZXingModule.mockRejectedValueOnce(new Error('404'))
    const detectorClass = await freshChooser()
    await expect(detectorClass()).rejects.toThrow('404')
    expect(bundled.purgeZXingModule).toHaveBeenCalledTimes(1)
    expect(await detectorClass()).toBe(bundled.BarcodeDetector)
    expect(bundled.prepareZXingModule).toHaveBeenCalledTimes(2)
  })
})
