import { useQuery } from '@tanstack/react-query'
import { queryKeys } from '../../api/queries.ts'
import { useEffect, useRef, useState } from 'react'
import { chunks, dbGet, inList, liveGet } from '../../api/db.ts'
import { writeItem } from '../../api/outbox.ts'
import { LoadingScreen } from '../../components/LoadingScreen.tsx'
import { t, tCount, type MessageKey } from '../../i18n/index.ts'
import { autoMap, fieldLabel, FIELDS, mappingErrors, MAX_ROWS, planRows, type Mapping, type PlannedRow } from './logic.ts'
import { readSheet, type Sheet } from './sheet.ts'

type Step = 'file' | 'mapping' | 'preview' | 'import'

const STEPS: { step: Step; label: MessageKey }[] = [
  { step: 'file', label: 'import.stepFile' },
  { step: 'mapping', label: 'import.stepMapping' },
  { step: 'preview', label: 'import.stepPreview' },
  { step: 'import', label: 'import.stepImport' },
]

const primary = 'rounded-md bg-sky-800 px-4 py-2 font-medium text-white hover:bg-sky-900 disabled:opacity-60'
const secondary = 'rounded-md border border-slate-300 px-4 py-2 hover:bg-slate-100'

interface Upload {
  name: string
  sheet: Sheet
}

function Steps({ current }: { current: Step }) {
  const at = STEPS.findIndex((s) => s.step === current)
  return (
    <ol className="flex flex-wrap gap-2 text-sm">
      {STEPS.map((s, i) => (
        <li
          key={s.step}
          aria-current={i === at ? 'step' : undefined}
          className={`rounded-full px-3 py-1 ${i === at ? 'bg-sky-800 text-white' : i < at ? 'bg-sky-100 text-sky-900' : 'bg-slate-100 text-slate-500'}`}
        >
          {i + 1}. {t(s.label)}
        </li>
      ))}
    </ol>
  )
}

function FileStep({ onRead }: { onRead: (u: Upload) => void }) {
  const [error, setError] = useState<string | null>(null)
  const [reading, setReading] = useState(false)
  return (
    <section className="flex flex-col gap-3 rounded-lg bg-white p-4 shadow">
      <label className="flex flex-col gap-2 text-sm font-medium">
        {t('import.chooseFile')}
        <input
          type="file"
          accept=".csv,.txt,.xlsx,text/csv,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
          disabled={reading}
          onChange={async (e) => {
            const file = e.target.files?.[0]
            if (!file) return
            setError(null)
            setReading(true)
            try {
              const sheet = await readSheet(file)
              if (sheet.length < 2) setError(t('import.noRows'))
              else if (sheet.length - 1 > MAX_ROWS) setError(t('import.tooManyRows', { count: sheet.length - 1, max: MAX_ROWS }))
              else onRead({ name: file.name, sheet })
            } catch (err) {
              setError(t('import.readFailed', { message: err instanceof Error ? err.message : String(err) }))
            } finally {
              setReading(false)
            }
          }}
          className="text-sm font-normal file:mr-3 file:rounded file:border-0 file:bg-sky-800 file:px-3 file:py-2 file:text-white"
        />
      </label>
      <p className="text-sm text-slate-600">{t('import.fileHelp', { max: MAX_ROWS })}</p>
      {reading && <p role="status">{t('import.reading')}</p>}
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      )}
    </section>
  )
}

function MappingStep({
  upload,
  mapping,
  onChange,
  onBack,
  onNext,
}: {
  upload: Upload
  mapping: Mapping
  onChange: (m: Mapping) => void
  onBack: () => void
  onNext: () => void
}) {
  const header = upload.sheet[0]
  const first = upload.sheet[1] ?? []
  const problems = mappingErrors(mapping)
  return (
    <section className="flex flex-col gap-3 rounded-lg bg-white p-4 shadow">
      <p className="text-sm text-slate-700">{t('import.fileSummary', { name: upload.name, rows: upload.sheet.length - 1, columns: header.length })}</p>
      <p className="text-sm text-slate-600">{t('import.mapIntro')}</p>
      <div className="overflow-x-auto">
        <table className="w-full text-sm">
          <thead className="bg-slate-50 text-left text-slate-500">
            <tr>
              <th scope="col" className="px-3 py-2 font-medium">
                {t('import.field')}
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                {t('import.column')}
              </th>
              <th scope="col" className="hidden px-3 py-2 font-medium sm:table-cell">
                {t('import.example')}
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {FIELDS.map((f) => {
              const col = mapping[f.key]
              const id = `map-${f.key}`
              return (
                <tr key={f.key}>
                  <th scope="row" className="px-3 py-2 text-left font-normal">
                    <label htmlFor={id}>
                      {fieldLabel(f.key)}
                      {f.required && ' *'}
                    </label>
                  </th>
                  <td className="px-3 py-2">
                    <select
                      id={id}
                      value={col ?? ''}
                      onChange={(e) => onChange({ ...mapping, [f.key]: e.target.value === '' ? null : Number(e.target.value) })}
                      className="w-full rounded border border-slate-300 px-2 py-1 focus:ring-2 focus:ring-sky-600 focus:outline-none"
                    >
                      <option value="">{t('import.notMapped')}</option>
                      {header.map((h, i) => (
                        <option key={i} value={i}>
                          {h || `#${i + 1}`}
                        </option>
                      ))}
                    </select>
                  </td>
                  <td className="hidden max-w-64 truncate px-3 py-2 text-slate-600 sm:table-cell">{col == null ? '' : first[col]}</td>
                </tr>
              )
            })}
          </tbody>
        </table>
      </div>
      {problems.map((p) => (
        <p key={p} role="alert" className="text-sm text-red-700">
          {p}
        </p>
      ))}
      <div className="flex gap-3">
        <button type="button" className={secondary} onClick={onBack}>
          {t('import.back')}
        </button>
        <button type="button" className={primary} disabled={problems.length > 0} onClick={onNext}>
          {t('import.next')}
        </button>
      </div>
    </section>
  )
}

/** The item codes of the file that exist, and the item groups by code. */
async function lookups(upload: Upload, mapping: Mapping) {
  const col = mapping.Code
  const codes = [
    ...new Set(
      upload.sheet
        .slice(1)
        .map((r) => (col == null ? '' : (r[col] ?? '').trim()))
        .filter(Boolean),
    ),
  ]
  const found = await Promise.all(
    chunks(codes, 100).map((part) =>
      dbGet<{ ID: string; Code: string }>('items', [
        ['Code', inList(part)],
        ['select', 'ID,Code'],
        ['limit', '1000'],
      ]),
    ),
  )
  const existing = new Map(found.flat().map((r) => [String(r.Code).trim().toLowerCase(), r.ID]))
  const needGroups = mapping.ItemGroup != null
  const groupRows = needGroups ? (await liveGet('itemGroups')).rows : []
  const groups = new Map(groupRows.map((g) => [String(g.Code).trim().toLowerCase(), g.ID]))
  return { existing, groups }
}

function PreviewStep({ plan, onBack, onRun }: { plan: PlannedRow[]; onBack: () => void; onRun: () => void }) {
  const count = (a: PlannedRow['action']) => plan.filter((p) => p.action === a).length
  const valid = plan.length - count('error')
  // rows with problems first, so they are seen
  const ordered = [...plan].sort((a, b) => Number(b.action === 'error') - Number(a.action === 'error') || a.row - b.row)
  return (
    <section className="flex flex-col gap-3 rounded-lg bg-white p-4 shadow">
      <p className="font-medium" data-testid="import-summary">
        {t('import.summary', { create: count('create'), update: count('update'), errors: count('error') })}
      </p>
      {count('error') > 0 && <p className="text-sm text-slate-600">{t('import.onlyValid')}</p>}
      <div className="max-h-[28rem] overflow-auto rounded border border-slate-200">
        <table className="w-full text-sm">
          <thead className="sticky top-0 bg-slate-50 text-left text-slate-500">
            <tr>
              <th scope="col" className="px-3 py-2 text-right font-medium">
                {t('import.row')}
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                {t('import.f.Code')}
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                {t('import.action')}
              </th>
              <th scope="col" className="px-3 py-2 font-medium">
                {t('import.problems')}
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {ordered.map((p) => (
              <tr key={p.row} className={p.action === 'error' ? 'bg-red-50' : ''}>
                <td className="px-3 py-1 text-right tabular-nums">{p.row}</td>
                <td className="px-3 py-1 font-mono">{p.code}</td>
                <td className="px-3 py-1">{p.action === 'create' ? t('import.create') : p.action === 'update' ? t('import.update') : '–'}</td>
                <td className="px-3 py-1 text-red-800">
                  {p.errors.length > 0 && (
                    <ul>
                      {p.errors.map((e) => (
                        <li key={e}>{e}</li>
                      ))}
                    </ul>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="flex gap-3">
        <button type="button" className={secondary} onClick={onBack}>
          {t('import.back')}
        </button>
        <button type="button" className={primary} disabled={valid === 0} onClick={onRun}>
          {tCount('import.run', valid)}
        </button>
      </div>
    </section>
  )
}

type Outcome = { row: number; code: string; state: 'queued' | 'delivered' | 'failed'; message?: string }

function ImportStep({ plan, onDone }: { plan: PlannedRow[]; onDone: () => void }) {
  const [rows] = useState(() => plan.filter((p) => p.action !== 'error'))
  const [outcomes, setOutcomes] = useState<Outcome[]>([])
  const started = useRef(false)
  const [finished, setFinished] = useState(false)

  // one write after the other: the outbox keeps them in this order. The ref keeps StrictMode's
  // second mount from sending everything twice.
  useEffect(() => {
    if (started.current) return
    started.current = true
    void (async () => {
      for (const p of rows) {
        let outcome: Outcome
        try {
          const res = await writeItem(p.data, p.id)
          outcome = { row: p.row, code: p.code, state: res.state === 'delivered' ? 'delivered' : 'queued' }
        } catch (e) {
          outcome = { row: p.row, code: p.code, state: 'failed', message: e instanceof Error ? e.message : String(e) }
        }
        setOutcomes((o) => [...o, outcome])
      }
      setFinished(true)
    })()
  }, [rows])

  const failed = outcomes.filter((o) => o.state === 'failed')
  const label: Record<Outcome['state'], MessageKey> = {
    queued: 'import.result.queued',
    delivered: 'import.result.delivered',
    failed: 'import.result.failed',
  }
  return (
    <section className="flex flex-col gap-3 rounded-lg bg-white p-4 shadow">
      <progress value={outcomes.length} max={Math.max(rows.length, 1)} className="h-3 w-full" aria-label={t('import.stepImport')} />
      <p role="status" data-testid="import-progress">
        {finished
          ? t('import.finished', { ok: outcomes.length - failed.length, failed: failed.length })
          : t('import.progress', { done: outcomes.length, total: rows.length })}
      </p>
      <div className="max-h-80 overflow-auto rounded border border-slate-200">
        <table className="w-full text-sm">
          <tbody className="divide-y divide-slate-100">
            {outcomes.map((o) => (
              <tr key={o.row}>
                <td className="px-3 py-1 text-right tabular-nums">{o.row}</td>
                <td className="px-3 py-1 font-mono">{o.code}</td>
                <td className={`px-3 py-1 ${o.state === 'failed' ? 'text-red-800' : 'text-emerald-800'}`}>{t(label[o.state])}</td>
                <td className="px-3 py-1 text-red-800">{o.message ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {finished && (
        <div>
          <button type="button" className={secondary} onClick={onDone}>
            {t('import.startOver')}
          </button>
        </div>
      )}
    </section>
  )
}

/** Upload CSV or XLSX → map columns → check every row → create or update items in Exact Online. */
export default function ImportItems() {
  const [step, setStep] = useState<Step>('file')
  const [upload, setUpload] = useState<Upload | null>(null)
  const [mapping, setMapping] = useState<Mapping>({})
  const [run, setRun] = useState(0)
  const check = useQuery({
    queryKey: queryKeys.importCheck(upload, mapping),
    queryFn: async () => {
      const u = upload as Upload
      const { existing, groups } = await lookups(u, mapping)
      return planRows(u.sheet, mapping, existing, groups)
    },
    enabled: step === 'preview' && !!upload,
    staleTime: Infinity,
    gcTime: 0,
  })

  const restart = () => {
    setUpload(null)
    setStep('file')
    setRun((r) => r + 1)
  }
  return (
    <div className="mx-auto flex w-full max-w-4xl flex-col gap-4 p-4 md:p-6">
      <div>
        <h1 className="text-2xl font-bold text-sky-900">{t('import.title')}</h1>
        <p className="text-slate-600">{t('import.intro')}</p>
      </div>
      <Steps current={step} />
      {step === 'file' && (
        <FileStep
          key={run}
          onRead={(u) => {
            setUpload(u)
            setMapping(autoMap(u.sheet[0]))
            setStep('mapping')
          }}
        />
      )}
      {step === 'mapping' && upload && (
        <MappingStep upload={upload} mapping={mapping} onChange={setMapping} onBack={restart} onNext={() => setStep('preview')} />
      )}
      {step === 'preview' &&
        (check.data ? (
          <PreviewStep plan={check.data} onBack={() => setStep('mapping')} onRun={() => setStep('import')} />
        ) : check.error ? (
          <p role="alert" className="text-red-700">
            {check.error.message}
          </p>
        ) : (
          <>
            <p role="status">{t('import.checking')}</p>
            <LoadingScreen />
          </>
        ))}
      {step === 'import' && check.data && <ImportStep plan={check.data} onDone={restart} />}
    </div>
  )
}
