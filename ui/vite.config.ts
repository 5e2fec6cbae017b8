import { defineConfig } from 'vitest/config'
import react from '@vitejs/plugin-react'
import tailwindcss from '@tailwindcss/vite'
import { readFileSync } from 'node:fs'
import type { Plugin } from 'vite'
import { precacheList, SERVICE_WORKER_FILE, serviceWorkerSource } from './src/sw/precache.ts'

/**
 * Emits `sw.js` with the precache list of this build (index.html and every screen's hashed chunk),
 * so a handheld opens the app without the server. `post`: after index.html is in the bundle.
 */
function serviceWorker(): Plugin {
  return {
    name: 'esm-service-worker',
    apply: 'build',
    enforce: 'post',
    generateBundle(_options, bundle) {
      const list = precacheList(Object.keys(bundle))
      if (!list.includes('/index.html')) this.error('index.html is not in the bundle: the service worker would keep no shell')
      const template = readFileSync(new URL('./src/sw/sw.template.js', import.meta.url), 'utf8')
      this.emitFile({ type: 'asset', fileName: SERVICE_WORKER_FILE, source: serviceWorkerSource(template, list) })
    },
  }
}

// The bundle is embedded into the Rust binary; hashed file names let the server cache them forever.
export default defineConfig({
  plugins: [react(), tailwindcss(), serviceWorker()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    assetsDir: 'assets',
    sourcemap: false,
  },
  server: {
    proxy: { '/api': 'http://127.0.0.1:8080' },
  },
  test: {
    environment: 'jsdom',
    include: ['src/**/*.test.{ts,tsx}', 'tools/**/*.test.ts'],
  },
})
