import { useState, type FormEvent } from 'react'
import { updateSalesLineDelivery } from '../../api/salesOrders.ts'
import type { WriteOutcome } from '../../api/writes.ts'
import { WriteStatus } from '../../components/WriteStatus.tsx'
import { t } from '../../i18n/index.ts'
import { formatDay } from '../../lib/dateTime.ts'
import { userMessage } from '../../lib/errors.ts'
import type { BalanceLine } from '../../lib/shortage.ts'

/**
 * A sales order line's delivery date, moved from where the shortage shows (a line delivered from
 * stock has no shop order, so Planning never shows it): a button, then the date and Save; the
 * write goes through the outbox and its state stays beside the line.
 */
export function RedateSalesLine({ line }: { line: BalanceLine }) {
  const [open, setOpen] = useState(false)
  const [date, setDate] = useState(line.day ?? '')
  const [sending, setSending] = useState(false)
  const [problem, setProblem] = useState<string | null>(null)
  const [outcome, setOutcome] = useState<{ what: string; result: WriteOutcome } | null>(null)
  if (!line.lineId) return null
  const what = t('materials.redate.line', { order: line.refNumber })

  const save = async (e: FormEvent) => {
    e.preventDefault()
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return setProblem(t('materials.redate.dateMissing'))
    setProblem(null)
    setSending(true)
    try {
      const result = await updateSalesLineDelivery(line.lineId!, date)
      setOutcome({ what: t('materials.redate.changed', { line: what, date: formatDay(date) }), result })
      if (result.state !== 'failed') setOpen(false)
    } catch (err) {
      setProblem(userMessage(err))
    } finally {
      setSending(false)
    }
  }

  return (
    <span className="inline-flex flex-col gap-1" data-testid="redate">
      {open ? (
        <form onSubmit={save} className="flex flex-wrap items-end gap-2" noValidate>
          <label className="flex flex-col gap-1 text-xs">
            {t('materials.redate.date')}
            <input
              type="date"
              value={date}
              onChange={(e) => setDate(e.target.value)}
              aria-label={t('materials.redate.dateOf', { line: what })}
              className="min-h-11 rounded border border-slate-300 px-2"
            />
          </label>
          <button
            type="submit"
            disabled={sending}
            className="min-h-11 rounded bg-sky-800 px-3 text-sm font-medium text-white hover:bg-sky-900 disabled:opacity-50"
          >
            {t('materials.redate.save')}
          </button>
          <button type="button" onClick={() => setOpen(false)} className="min-h-11 rounded border border-slate-300 px-3 text-sm">
            {t('materials.redate.cancel')}
          </button>
        </form>
      ) : (
        <button type="button" onClick={() => setOpen(true)} className="min-h-11 self-start text-xs text-sky-800 underline-offset-2 hover:underline md:min-h-0">
          {t('materials.redate.open')}
        </button>
      )}
      {problem && (
        <span role="alert" className="text-xs text-red-700">
          {problem}
        </span>
      )}
      {outcome && <WriteStatus outcome={outcome.result} what={outcome.what} />}
    </span>
  )
}
