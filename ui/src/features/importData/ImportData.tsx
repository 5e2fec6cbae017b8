import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { instantMs } from '../../api/auth.ts'
import { EXPORT_URL, uploadImport, type ImportReport } from './api.ts'
import { useSession } from '../../api/queries.ts'
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx'
import { Loading } from '../../components/Loading.tsx'
import { locale, t, type MessageKey } from '../../i18n/index.ts'
import { formatServerTime } from '../../lib/dateTime.ts'
import { checkHeader, firstLine, MAX_IMPORT_BYTES, percent, timeLeft, type ExportHeader, type HeaderCheck } from './logic.ts'
import { userMessage } from '../../lib/errors.ts'
import { DataTable } from '../../components/ui/DataTable.tsx'

const primary = 'min-h-12 rounded-md bg-sky-800 px-4 py-2 font-medium text-white hover:bg-sky-900 disabled:opacity-60'
const secondary = 'min-h-12 rounded-md border border-sky-800 px-4 py-2 font-medium text-sky-900 hover:bg-sky-50'
const section = 'flex flex-col gap-3 rounded-lg bg-white p-4 shadow'

const REASON: Record<Exclude<HeaderCheck, { ok: true }>['reason'], MessageKey> = {
  empty: 'importData.fileEmpty',
  notJson: 'importData.fileNotJson',
  notExport: 'importData.fileNotExport',
  version: 'importData.fileVersion',
  otherDivision: 'importData.fileOtherDivision',
}

const n = (v: number) => v.toLocaleString(locale())

function TableCounts({ tables, testId }: { tables: Record<string, number>; testId: string }) {
  const names = Object.keys(tables).sort()
  return (
    <DataTable
      className="w-full max-w-md text-sm"
      tableProps={{ 'data-testid': testId }}
      columns={[
        { key: 'name', header: t('importData.table'), headerClassName: 'py-1 font-medium', className: 'py-1', cell: (name) => name },
        {
          key: 'rows',
          header: t('importData.rows'),
          headerClassName: 'py-1 text-right font-medium',
          className: 'py-1 text-right tabular-nums',
          cell: (name) => n(tables[name]),
        },
      ]}
      rows={names}
      rowKey={(name) => name}
      rowProps={(name) => ({ 'data-table': name })}
    />
  )
}

/** The re-authentication's time left, ticking. */
function Countdown({ until }: { until: number }) {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(id)
  }, [])
  return <p className="text-sm text-slate-600">{t('importData.reauthLeft', { time: timeLeft(until, now) })}</p>
}

function Report({ report }: { report: ImportReport }) {
  return (
    <div className="flex flex-col gap-2">
      <TableCounts tables={report.tables} testId={report.applied ? 'import-result' : 'import-preview'} />
      {report.error_count > 0 && (
        <div role="alert" className="rounded-md bg-red-50 p-3 text-red-800">
          <p className="font-medium">{t('importData.rowErrors', { count: n(report.error_count) })}</p>
          <ul className="list-disc pl-5 text-sm">
            {report.errors.map((e) => (
              <li key={e.line}>{t('importData.lineError', { line: e.line, message: e.message })}</li>
            ))}
          </ul>
        </div>
      )}
    </div>
  )
}

/** Export the organization's local copy, and import one back after a checked preview. */
export default function ImportData() {
  const { data: session } = useSession()
  const queryClient = useQueryClient()
  const [file, setFile] = useState<File | null>(null)
  const [header, setHeader] = useState<ExportHeader | null>(null)
  const [fileError, setFileError] = useState<string | null>(null)
  const [progress, setProgress] = useState(0)
  const [confirming, setConfirming] = useState(false)

  const preview = useMutation({
    mutationFn: (f: File) => uploadImport(f, true, (l, total) => setProgress(percent(l, total))),
  })
  const run = useMutation({
    mutationFn: (f: File) => uploadImport(f, false, (l, total) => setProgress(percent(l, total))),
    // every screen reads the replaced tables again
    onSuccess: (r) => {
      if (r.applied) void queryClient.invalidateQueries()
    },
  })

  if (!session) return <Loading />
  const until = instantMs(session.importDataUntil)

  const choose = async (f: File | undefined) => {
    setFile(null)
    setHeader(null)
    setFileError(null)
    preview.reset()
    run.reset()
    if (!f) return
    if (f.size > MAX_IMPORT_BYTES) {
      setFileError(t('importData.fileTooBig'))
      return
    }
    const check = checkHeader(firstLine(await f.slice(0, 1 << 20).text()), session.division)
    if (!check.ok) {
      setFileError(t(REASON[check.reason], { division: check.division ?? '?', own: session.division }))
      return
    }
    setFile(f)
    setHeader(check.header)
    setProgress(0)
    preview.mutate(f)
  }

  const previewOk = preview.data && preview.data.error_count === 0
  const busy = preview.isPending || run.isPending

  return (
    <div className="mx-auto flex w-full max-w-3xl flex-1 flex-col gap-4 p-4 md:p-6">
      <div>
        <h1 className="text-2xl font-bold text-sky-900">{t('importData.title')}</h1>
        {Number.isFinite(until) && <Countdown until={until} />}
      </div>

      <section className={section} aria-labelledby="export-h">
        <h2 id="export-h" className="text-lg font-semibold">
          {t('importData.exportTitle')}
        </h2>
        <p className="text-sm text-slate-700">{t('importData.exportHelp')}</p>
        <a href={EXPORT_URL} download className={`${secondary} self-start`}>
          {t('importData.exportButton')}
        </a>
      </section>

      <section className={section} aria-labelledby="import-h">
        <h2 id="import-h" className="text-lg font-semibold">
          {t('importData.importTitle')}
        </h2>
        <p className="text-sm text-slate-700">{t('importData.importHelp')}</p>
        <label className="flex flex-col gap-2 text-sm font-medium">
          {t('importData.chooseFile')}
          <input
            type="file"
            accept=".ndjson,.jsonl,.json,.txt,application/x-ndjson"
            disabled={busy}
            onChange={(e) => void choose(e.target.files?.[0])}
            className="text-sm font-normal file:mr-3 file:min-h-12 file:rounded file:border-0 file:bg-sky-800 file:px-3 file:text-white"
          />
        </label>
        {fileError && (
          <p role="alert" className="text-red-700">
            {fileError}
          </p>
        )}
        {header && file && (
          <p className="text-sm text-slate-700" data-testid="import-file">
            {t('importData.fileSummary', {
              name: file.name,
              org: header.name || String(header.division),
              date: header.exported_at ? formatServerTime(header.exported_at) : '?',
            })}
          </p>
        )}
        {busy && (
          <div role="status" className="flex flex-col gap-1">
            <p>{t(preview.isPending ? 'importData.checking' : 'importData.importing', { percent: progress })}</p>
            <progress max={100} value={progress} className="h-3 w-full" aria-label={t('importData.progress')} />
            {progress >= 100 && <p className="text-sm text-slate-600">{t('importData.serverWorking')}</p>}
          </div>
        )}
        {preview.error && (
          <p role="alert" className="text-red-700">
            {userMessage(preview.error)}
          </p>
        )}
        {preview.data && !run.data && (
          <>
            <h3 className="font-medium">{previewOk ? t('importData.previewOk') : t('importData.previewBad')}</h3>
            <Report report={preview.data} />
            {previewOk && (
              <button type="button" disabled={busy} onClick={() => setConfirming(true)} className={`${primary} self-start`}>
                {t('importData.importButton')}
              </button>
            )}
          </>
        )}
        {run.error && (
          <p role="alert" className="text-red-700">
            {userMessage(run.error)}
          </p>
        )}
        {run.data?.applied && (
          <>
            <p role="status" className="rounded-md bg-emerald-50 p-3 text-emerald-900">
              {t('importData.done')}
            </p>
            <Report report={run.data} />
          </>
        )}
      </section>
      {confirming && file && (
        <ConfirmDialog
          message={t('importData.confirm', { tables: Object.keys(preview.data?.tables ?? {}).length })}
          noLabel={t('importData.no')}
          yesLabel={t('importData.yes')}
          onNo={() => setConfirming(false)}
          onYes={() => {
            setConfirming(false)
            setProgress(0)
            run.mutate(file)
          }}
        />
      )}
    </div>
  )
}
