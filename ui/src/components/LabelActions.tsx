// Printing labels, shared by every screen that prints them: the label type, printer and copies
// Global Settings choose (the user may change type and printer for this print), the PDF in a
// tab opened by the click itself, the job on a network printer followed until it has printed or
// failed, and what the server said of the labels it made.
import { useMutation, useQuery } from '@tanstack/react-query'
import { useEffect, useId, useState } from 'react'
import { openLabelsPdf, printLabels, releasePdfUrl, type LabelResult, type LabelSelection, type LabelSource } from '../api/labels.ts'
import { printersQuery } from '../api/org.ts'
import { useSession } from '../api/queries.ts'
import { t, tCount } from '../i18n/index.ts'
import { canonicalType, chosenPrinter, LABEL_TYPES, labelCopies, labelTypeFor, labelTypeName, planCopies, printersFor } from '../lib/labels.ts'
import { readSettings } from '../lib/orgSettings.ts'
import { inputClass, labelClass } from './ui/Field.tsx'
import { buttonClass } from './ui/Button.tsx'
import { PrintJobStatus, type PrintJob } from './PrintJobStatus.tsx'

export interface LabelPrintOptions {
  source: LabelSource
  ids: readonly LabelSelection[]
  /** Copies of each label; Global Settings' when absent (a screen whose counts already hold them passes 1). */
  copies?: number
  /** Told whether a PDF was made, or a print job printed (not when it was only queued): the handheld's sound. */
  onOutcome?: (ok: boolean) => void
}

/** The state of one print of labels: type, printer and copies chosen, the PDF and the print. */
export function useLabelPrint({ source, ids, copies, onOutcome }: LabelPrintOptions) {
  const { data: session } = useSession()
  const settings = readSettings(session?.organizationDetails.preferences ?? {})
  const printers = useQuery(printersQuery)
  // null: nothing picked here yet, so the settings decide (also once they have loaded)
  const [pickedType, setType] = useState<string | null>(null)
  const [pickedPrinter, setPrinter] = useState<string | null>(null)
  // a type saved by number is listed and sent by its name: one entry per type in the list
  const type = canonicalType(pickedType ?? labelTypeFor(settings, source))
  const printer = chosenPrinter(pickedPrinter, settings, printers.data, type)
  const wanted = copies ?? labelCopies(settings)
  const plan = planCopies(source, ids, wanted)
  const [pdfUrl, setPdfUrl] = useState<string | null>(null)
  useEffect(() => () => (pdfUrl ? releasePdfUrl(pdfUrl) : undefined), [pdfUrl])

  const pdf = useMutation({
    mutationFn: (tab: Window | null) => openLabelsPdf({ source, ids: plan.ids, type, copies: plan.batchCopies }, tab),
    onSuccess: ({ url }) => {
      setPdfUrl(url)
      onOutcome?.(true)
    },
    onError: () => onOutcome?.(false),
  })
  const print = useMutation({
    mutationFn: () => printLabels({ source, ids: plan.ids, type, copies: plan.batchCopies }, printer),
    // a queued job has printed nothing yet: its end is told by `onJobEnd`
    onError: () => onOutcome?.(false),
  })

  return {
    type,
    setType,
    /** The label types to pick from, with a saved one this version does not know kept. */
    types: LABEL_TYPES.some((l) => l === type) ? [...LABEL_TYPES] : [...LABEL_TYPES, type],
    printer,
    setPrinter,
    /** The printers that can print the type. */
    printers: printersFor(printers.data, type),
    printersQuery: printers,
    copies: wanted,
    plan,
    pdf,
    print,
    pdfUrl,
    /** Opens the tab within the click (a tab opened after the answer is blocked as a pop-up). */
    openPdf: () => {
      print.reset()
      pdf.mutate(window.open('', '_blank'))
    },
    sendToPrinter: () => {
      pdf.reset()
      print.mutate()
    },
    /** For PrintJobStatus: a job that printed went well; one that failed did not; a cancel is the user's own. */
    onJobEnd: (job: PrintJob) => {
      if (job.state !== 'cancelled') onOutcome?.(job.state === 'completed')
    },
  }
}

export type LabelPrint = ReturnType<typeof useLabelPrint>

/**
 * The server's summary of a generation in words: how many labels were made (for a PDF) or are in
 * the print job, and what was left out. Its status word (SUCCESS, WARNING) is not for the user: a
 * print's outcome is the job's, which PrintJobStatus follows.
 */
export function LabelResultNote({ result, print = false }: { result: LabelResult | null | undefined; print?: boolean }) {
  if (!result) return null
  return (
    <div className="text-sm text-slate-700" data-testid="label-result" data-status={result.status}>
      <p>{tCount(print ? 'labels.inJob' : 'labels.made', result.labels)}</p>
      {result.messages.length > 0 && (
        <ul className="list-disc pl-5 text-amber-900">
          {result.messages.map((m) => (
            <li key={m}>{m}</li>
          ))}
        </ul>
      )}
    </div>
  )
}

/** Tailwind classes of the pieces, so the handheld can have its larger touch targets. */
export interface LabelStyles {
  section: string
  title: string
  field: string
  control: string
  primary: string
  secondary: string
}

const DEFAULT_STYLES: LabelStyles = {
  section: 'flex flex-col gap-3',
  title: 'font-semibold',
  field: labelClass,
  control: inputClass,
  primary: buttonClass({ variant: 'primary' }),
  secondary: buttonClass(),
}

/** The label buttons for some records: type, PDF, printer and print, with their outcome. */
export function LabelActions({ title, styles = DEFAULT_STYLES, ...options }: LabelPrintOptions & { title: string; styles?: LabelStyles }) {
  const l = useLabelPrint(options)
  const typeId = useId()
  const printerId = useId()
  const nothing = options.ids.length === 0
  const error = l.pdf.error ?? l.print.error

  return (
    <section aria-label={title} data-testid="label-actions" data-source={options.source} className={styles.section}>
      <h3 className={styles.title}>{title}</h3>
      <div className={styles.field}>
        <label htmlFor={typeId}>{t('labels.type')}</label>
        <select id={typeId} value={l.type} onChange={(e) => l.setType(e.target.value)} className={styles.control}>
          {l.types.map((type) => (
            <option key={type} value={type}>
              {labelTypeName(type)}
            </option>
          ))}
        </select>
      </div>
      <button type="button" disabled={nothing || l.pdf.isPending} onClick={l.openPdf} className={styles.primary}>
        {l.pdf.isPending ? t('labels.making') : t('labels.pdf')}
      </button>
      {l.printers.length > 0 ? (
        <>
          <div className={styles.field}>
            <label htmlFor={printerId}>{t('labels.printer')}</label>
            <select id={printerId} value={l.printer} onChange={(e) => l.setPrinter(e.target.value)} className={styles.control}>
              <option value="">{t('labels.choosePrinter')}</option>
              {l.printers.map((p) => (
                <option key={p.name} value={p.name}>
                  {p.state ? t('global.printerState', { name: p.name, state: p.state }) : p.name}
                </option>
              ))}
            </select>
          </div>
          <button type="button" disabled={nothing || !l.printer || l.print.isPending} onClick={l.sendToPrinter} className={styles.secondary}>
            {l.print.isPending ? t('labels.sending') : t('labels.print', { copies: l.copies })}
          </button>
        </>
      ) : l.printersQuery.isPending ? (
        <p className="text-sm text-slate-600">{t('labels.printersLoading')}</p>
      ) : (
        <p className="text-sm text-slate-600">{t('labels.noPrinters')}</p>
      )}
      {l.pdf.isSuccess && (
        <>
          <LabelResultNote result={l.pdf.data.result} />
          {l.pdfUrl && (
            <a href={l.pdfUrl} target="_blank" rel="noopener" className="text-sm text-sky-800 underline">
              {t('labels.pdfAgain')}
            </a>
          )}
        </>
      )}
      {l.print.isSuccess && (
        <div data-testid="label-print-job" className="flex flex-col gap-2">
          <PrintJobStatus job={l.print.data.job} onEnd={l.onJobEnd} />
          <LabelResultNote result={l.print.data.result} print />
        </div>
      )}
      {error && (
        <p role="alert" className="rounded-md bg-red-50 p-3 text-red-800">
          {error.message}
        </p>
      )}
    </section>
  )
}
