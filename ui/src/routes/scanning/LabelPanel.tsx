import { useMutation, useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import type { Session } from '../../api/auth.ts'
import { getPrinters, usablePrinters } from '../../api/org.ts'
import { openItemLabel, printItemLabel, type ScannedItem } from '../../api/scanning.ts'
import { t } from '../../i18n/index.ts'
import { signal } from '../../lib/feedback.ts'
import { LABEL_TYPES, readSettings } from '../GlobalSettings.tsx'
import { bigButton, control, field } from './fields.tsx'

/** The item's label: as a PDF in a new tab, or straight to a label printer. */
export function LabelPanel({ item, session }: { item: ScannedItem; session: Session }) {
  const settings = readSettings(session.organizationDetails.preferences)
  const printers = useQuery({ queryKey: ['printers'], queryFn: getPrinters, retry: false })
  const [type, setType] = useState(settings.label_type_item)
  const [printer, setPrinter] = useState(settings.default_printer)
  const pdf = useMutation({
    mutationFn: (tab: Window | null) => openItemLabel({ item: item.ID, type }, tab),
    onSuccess: () => signal(true),
    onError: () => signal(false),
  })
  const print = useMutation({
    mutationFn: () => printItemLabel({ item: item.ID, type, printer, copies: settings.label_copies }),
    onSuccess: () => signal(true),
    onError: () => signal(false),
  })
  const error = pdf.error ?? print.error

  return (
    <section aria-label={t('scanning.labelTitle')} className="flex flex-col gap-3 rounded-lg border border-sky-200 bg-sky-50/40 p-3">
      <h3 className="text-lg font-semibold text-sky-900">{t('scanning.labelTitle')}</h3>
      <div className={field}>
        <label htmlFor="label-type">{t('scanning.labelType')}</label>
        <select id="label-type" value={type} onChange={(e) => setType(e.target.value)} className={control}>
          {LABEL_TYPES.map((l) => (
            <option key={l} value={l}>
              {l}
            </option>
          ))}
        </select>
      </div>
      <button
        type="button"
        disabled={pdf.isPending}
        onClick={() => pdf.mutate(window.open('', '_blank'))}
        className={bigButton}
      >
        {pdf.isPending ? t('scanning.labelMaking') : t('scanning.labelPdf')}
      </button>
      {usablePrinters(printers.data).length > 0 ? (
        <>
          <div className={field}>
            <label htmlFor="label-printer">{t('scanning.printer')}</label>
            <select id="label-printer" value={printer} onChange={(e) => setPrinter(e.target.value)} className={control}>
              <option value="">{t('scanning.selectOne')}</option>
              {usablePrinters(printers.data).map((p) => (
                <option key={p.name} value={p.name}>
                  {p.name}
                </option>
              ))}
            </select>
          </div>
          <button type="button" disabled={!printer || print.isPending} onClick={() => print.mutate()} className={bigButton}>
            {t('scanning.labelPrint', { copies: settings.label_copies })}
          </button>
        </>
      ) : (
        printers.isSuccess && <p className="text-sm text-slate-600">{t('scanning.noPrinters')}</p>
      )}
      {print.isSuccess && (
        <p role="status" className="rounded-md bg-emerald-50 p-3 text-emerald-900">
          {t('scanning.labelSent', { printer })}
        </p>
      )}
      {error && (
        <p role="alert" className="rounded-md bg-red-50 p-3 text-red-800">
          {error.message}
        </p>
      )}
    </section>
  )
}
