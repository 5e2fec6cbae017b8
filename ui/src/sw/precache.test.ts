import { describe, expect, it } from 'vitest'
// the template as the build reads it
import template from './sw.template.js?raw'
import { precacheList, precacheVersion, PUBLIC_SHELL_FILES, serviceWorkerSource } from './precache.ts'

// what Vite's bundle holds after a build: the page, the entry, lazy screens, styles, a source map
const BUNDLE = [
  'index.html',
  'assets/index-BTk4d2mG.js',
  'assets/Scanning-x1Y2.js',
  'assets/index-C0ffee.css',
  'assets/Planning-BA6v.js',
  'assets/zxing_reader-Dq3v.wasm',
  'assets/index-BTk4d2mG.js.map',
  'sw.js',
]

describe('precacheList', () => {
  it('keeps the shell, every screen and the installable app files, once and in order', () => {
    const list = precacheList(BUNDLE)
    expect(list).toContain('/index.html')
    expect(list).toContain('/assets/Scanning-x1Y2.js')
    expect(list).toContain('/assets/Planning-BA6v.js')
    expect(list).toContain('/assets/index-C0ffee.css')
    // the camera's bundled decoder, for browsers without their own
    expect(list).toContain('/assets/zxing_reader-Dq3v.wasm')
    for (const f of PUBLIC_SHELL_FILES) expect(list).toContain(f)
    expect(list).toEqual([...new Set(list)].sort())
  })

  it('leaves out the service worker itself and source maps', () => {
    const list = precacheList(BUNDLE)
    expect(list).not.toContain('/sw.js')
    expect(list.some((f) => f.endsWith('.map'))).toBe(false)
  })

  it('names a new release differently and the same release the same', () => {
    const list = precacheList(BUNDLE)
    expect(precacheVersion(list)).toBe(precacheVersion(precacheList([...BUNDLE].reverse())))
    expect(precacheVersion(list)).not.toBe(precacheVersion(precacheList(['index.html', 'assets/index-NEW.js'])))
    expect(precacheVersion(list)).toMatch(/^[0-9a-f]{8}$/)
  })
})

describe('serviceWorkerSource', () => {
  it('fills the real template with the list and its version', () => {
    const list = precacheList(BUNDLE)
    const source = serviceWorkerSource(template, list)
    expect(source).toContain(`const PRECACHE = ${JSON.stringify(list)}`)
    expect(source).toContain(`const VERSION = "${precacheVersion(list)}"`)
    expect(source).not.toMatch(/__PRECACHE__|__VERSION__/)
    // the API is never answered from the cache
    expect(source).toContain("url.pathname.startsWith('/api/')")
  })

  it('refuses a template without its placeholders', () => {
    expect(() => serviceWorkerSource('self.addEventListener("fetch", () => {})', [])).toThrow(/placeholder|__PRECACHE__/)
  })
})
