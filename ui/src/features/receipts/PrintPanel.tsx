import { useQuery } from '@tanstack/react-query'
import { useState, type Ref } from 'react'
import { receiptKeys, useSession } from '../../api/queries.ts'
import { fetchNeeds, fetchTracking } from '../../api/receipts.ts'
import { ExternalLink } from '../../components/ExternalLink.tsx'
import { LabelResultNote, useLabelPrint } from '../../components/LabelActions.tsx'
import { PrintJobStatus } from '../../components/PrintJobStatus.tsx'
import { inputClass, labelClass } from '../../components/ui/Field.tsx'
import { sectionClass } from '../../components/ui/Section.tsx'
import { locale, t } from '../../i18n/index.ts'
import { labelCopies, labelTypeName } from '../../lib/labels.ts'
import { formatQuantity } from '../../lib/quantity.ts'
import type { ReceiptLine } from '../../lib/receipts.ts'
import { readSettings } from '../../lib/orgSettings.ts'
import { userMessage } from '../../lib/errors.ts'
import { Button } from '../../components/ui/Button.tsx'
import { Select } from '../../components/ui/Select.tsx'

const MAX_COUNT = 100

function countError(text: string): boolean {
  const n = Number(text)
  return !Number.isInteger(n) || n < 1 || n > MAX_COUNT
}

/**
 * The lines picked for labels, each with how many to print (Global Settings' copies to start
 * with) and the shop orders that need its item; the labels, of the type Global Settings choose
 * for goods receipts, open as a PDF in a new tab or go to a printer (the default one preselected),
 * where the job is followed until it has printed or failed. `titleRef` takes the focus from the bar.
 */
export function PrintPanel({
  lines,
  division,
  onRemove,
  titleRef,
}: {
  lines: ReceiptLine[]
  division: number
  onRemove: (id: string) => void
  titleRef?: Ref<HTMLHeadingElement>
}) {
  const { data: session } = useSession()
  const startCount = String(labelCopies(readSettings(session?.organizationDetails.preferences ?? {})))
  const [counts, setCounts] = useState<Record<string, string>>({})
  const countOf = (id: string) => counts[id] ?? startCount
  const itemIds = lines.map((l) => l.item).filter(Boolean)
  const needs = useQuery({ queryKey: receiptKeys.needs(itemIds), queryFn: () => fetchNeeds(itemIds), enabled: itemIds.length > 0 })
  // a note only (the server prints a serial line's labels per number, whatever its count, and a batch line's per batch): without it the labels print the same
  const tracking = useQuery({ queryKey: receiptKeys.tracking(itemIds), queryFn: () => fetchTracking(itemIds), enabled: itemIds.length > 0, retry: false })

  const invalid = lines.some((l) => countError(countOf(l.id)))
  // the copies are in each line's count already
  const labels = useLabelPrint({
    source: 'goods_receipt',
    ids: lines.map((l) => ({ id: l.id, print_count: Number(countOf(l.id)) })),
    copies: 1,
  })
  const { pdf, print } = labels

  return (
    <section className={`${sectionClass} scroll-mt-3`} aria-labelledby="print-title" data-testid="print-panel">
      <h2 id="print-title" ref={titleRef} tabIndex={-1} className="text-lg font-semibold focus:outline-none">
        {t('receipts.printTitle', { count: lines.length })}
      </h2>
      <ul className="divide-y divide-slate-100">
        {lines.map((l) => {
          const need = needs.data?.get(l.item.toLowerCase()) ?? []
          const count = countOf(l.id)
          const tracked = tracking.data?.get(l.item.toLowerCase())
          return (
            <li key={l.id} className="flex flex-col gap-2 py-2 sm:flex-row sm:items-start" data-testid="print-line">
              <div className="flex min-w-0 flex-1 flex-col">
                <span className="font-mono text-sm font-semibold">{l.itemCode}</span>
                <span className="text-sm text-slate-700">{l.itemDescription}</span>
                <span className="text-xs text-slate-600" data-testid="needed-by">
                  {needs.isPending ? t('receipts.needsLoading') : need.length === 0 ? t('receipts.notNeeded') : t('receipts.neededBy')}
                </span>
                {(tracked === 'serial' || tracked === 'batch') && (
                  <span className="text-xs text-slate-700" data-testid="label-per-number">
                    {tracked === 'serial' ? t('receipts.labelPerSerial') : t('receipts.labelPerBatch')}
                  </span>
                )}
                {need.length > 0 && (
                  <ul className="flex flex-wrap gap-1">
                    {need.map((n) => (
                      <li key={`${n.shopOrderId}-${n.quantity}`} className="rounded bg-amber-50 px-1.5 py-0.5 text-xs text-amber-900">
                        <ExternalLink page="shopOrder" division={division} id={n.shopOrderId} code={n.shopOrderNumber}>
                          {t('receipts.shopOrderNeed', { number: n.shopOrderNumber, quantity: formatQuantity(n.quantity, locale()) })}
                        </ExternalLink>
                      </li>
                    ))}
                  </ul>
                )}
              </div>
              <div className="flex items-end gap-2">
                <label className={`${labelClass} w-24`}>
                  {t('receipts.printCount')}
                  <input
                    className={inputClass}
                    inputMode="numeric"
                    value={count}
                    aria-invalid={countError(count)}
                    onChange={(e) => setCounts((c) => ({ ...c, [l.id]: e.target.value }))}
                  />
                </label>
                <Button type="button" variant="secondary" onClick={() => onRemove(l.id)} aria-label={t('receipts.removeLine', { code: l.itemCode })}>
                  ×
                </Button>
              </div>
            </li>
          )
        })}
      </ul>
      {invalid && (
        <p role="alert" className="text-sm text-red-700">
          {t('receipts.countInvalid', { max: MAX_COUNT })}
        </p>
      )}
      {needs.error && (
        <p role="alert" className="text-sm text-red-700">
          {userMessage(needs.error)}
        </p>
      )}
      <div className="flex flex-col gap-3 sm:flex-row sm:flex-wrap sm:items-end">
        <label className={`${labelClass} sm:w-80`}>
          {t('labels.type')}
          <Select value={labels.type} onChange={(e) => labels.setType(e.target.value)}>
            {labels.types.map((type) => (
              <option key={type} value={type}>
                {labelTypeName(type)}
              </option>
            ))}
          </Select>
        </label>
        <Button type="button" variant="primary" disabled={invalid || pdf.isPending} onClick={labels.openPdf}>
          {pdf.isPending ? t('receipts.making') : t('receipts.openPdf')}
        </Button>
        <label className={`${labelClass} sm:w-64`}>
          {t('receipts.printer')}
          <Select value={labels.printer} onChange={(e) => labels.setPrinter(e.target.value)}>
            <option value="">{labels.printersQuery.isPending ? t('receipts.printersLoading') : t('receipts.choosePrinter')}</option>
            {labels.printers.map((p) => (
              <option key={p.name} value={p.name}>
                {p.name}
                {p.state ? ` (${p.state})` : ''}
              </option>
            ))}
          </Select>
        </label>
        <Button type="button" variant="secondary" disabled={invalid || !labels.printer || print.isPending} onClick={labels.sendToPrinter}>
          {t('receipts.print')}
        </Button>
      </div>
      {labels.printersQuery.isSuccess && labels.printers.length === 0 && <p className="text-sm text-slate-600">{t('labels.noPrinters')}</p>}
      {pdf.error && (
        <p role="alert" className="text-sm text-red-700">
          {userMessage(pdf.error)}
        </p>
      )}
      {pdf.isSuccess && (
        <>
          <LabelResultNote result={pdf.data.result} />
          {labels.pdfUrl && (
            <a href={labels.pdfUrl} target="_blank" rel="noopener" className="text-sm text-sky-800 underline">
              {t('receipts.pdfAgain')}
            </a>
          )}
        </>
      )}
      {print.error && (
        <p role="alert" className="text-sm text-red-700">
          {userMessage(print.error)}
        </p>
      )}
      {print.isSuccess && (
        <div className="flex flex-col gap-2" data-testid="print-job">
          <PrintJobStatus job={print.data.job} onEnd={labels.onJobEnd} />
          <LabelResultNote result={print.data.result} print />
        </div>
      )}
    </section>
  )
}
