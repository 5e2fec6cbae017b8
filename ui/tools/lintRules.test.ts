// @vitest-environment node
// The import rules of .oxlintrc.json, run on throwaway trees that break them: a rule that is
// misspelt, dropped or matched to no file would otherwise pass the lint silently.
import { execFileSync } from 'node:child_process'
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'

const UI = join(dirname(fileURLToPath(import.meta.url)), '..')
const OXLINT = join(UI, 'node_modules', '.bin', 'oxlint')
const trees: string[] = []

afterEach(() => {
  for (const t of trees.splice(0)) rmSync(t, { recursive: true, force: true })
})

/** Lints `files` (path under ui/ → source) with the UI's config: the exit code and the report. */
function lint(files: Record<string, string>): { code: number; out: string } {
  const root = mkdtempSync(join(tmpdir(), 'esm-lint-'))
  trees.push(root)
  // the overrides' globs are relative to the config file, so it sits where it does in ui/
  copyFileSync(join(UI, '.oxlintrc.json'), join(root, '.oxlintrc.json'))
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), source)
  }
  try {
    const out = execFileSync(OXLINT, ['-c', '.oxlintrc.json', '--deny-warnings', 'src'], { cwd: root, encoding: 'utf8' })
    return { code: 0, out }
  } catch (e) {
    const failed = e as { status: number; stdout: string; stderr: string }
    return { code: failed.status, out: failed.stdout + failed.stderr }
  }
}

describe('import rules', () => {
  it('pass imports down the layers and within a feature', () => {
    const { code, out } = lint({
      'src/lib/a.ts': 'export const a = 1\n',
      'src/components/B.ts': "import { a } from '../lib/a.ts'\nexport const b = a\n",
      'src/features/counts/c.ts': "import { b } from '../../components/B.ts'\nexport const c = b\n",
      'src/features/counts/d.ts': "import { c } from './c.ts'\nexport const d = c\n",
      'src/routes/E.ts': "import { d } from '../features/counts/d.ts'\nexport const e = d\n",
    })
    expect(out).toContain('0 errors')
    expect(code).toBe(0)
  })

  it('refuse a feature importing another feature', () => {
    const { code, out } = lint({
      'src/features/transfers/api.ts': 'export const find = 1\n',
      'src/features/counts/NewCount.ts': "import { find } from '../transfers/api.ts'\nexport const n = find\n",
    })
    expect(code).not.toBe(0)
    expect(out).toContain('no-restricted-imports')
    expect(out).toContain('A feature never imports another feature')
  })

  it('refuse lib/ and components/ importing a feature or a route screen', () => {
    const { code, out } = lint({
      'src/features/counts/logic.ts': 'export const kinds = 1\n',
      'src/routes/GlobalSettings.ts': 'export const read = 1\n',
      'src/lib/labels.ts': "import { read } from '../routes/GlobalSettings.ts'\nexport const l = read\n",
      'src/components/ui/Thing.ts': "import { kinds } from '../../features/counts/logic.ts'\nexport const t = kinds\n",
    })
    expect(code).not.toBe(0)
    expect(out.match(/no-restricted-imports/g)).toHaveLength(2)
    expect(out).toContain('lib/ and components/ sit below the screens')
  })

  it('refuse an import cycle', () => {
    const { code, out } = lint({
      'src/lib/p.ts': "import { q } from './q.ts'\nexport const p = () => q\n",
      'src/lib/q.ts': "import { p } from './p.ts'\nexport const q = () => p\n",
    })
    expect(code).not.toBe(0)
    expect(out).toContain('import(no-cycle)')
  })
})
