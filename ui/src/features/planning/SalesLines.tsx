import { useQuery } from '@tanstack/react-query'
import { planningKeys } from '../../api/queries.ts'
import { useState, type FormEvent } from 'react'
import { fetchOrderSalesLines, updateSalesLineDelivery, type SalesLine } from './api.ts'
import type { WriteOutcome } from '../../api/writes.ts'
import { ExternalLink } from '../../components/ExternalLink.tsx'
import { Loading } from '../../components/Loading.tsx'
import { userMessage } from '../../lib/errors.ts'
import { WriteStatus } from '../../components/WriteStatus.tsx'
import { locale, t } from '../../i18n/index.ts'
import { formatDay } from '../../lib/dateTime.ts'
import { dayIso, toDay } from './logic/timeline.ts'
import { OPEN_SALES_LINE } from '../../lib/shortage.ts'

const num = (n: unknown) => Number(n ?? 0).toLocaleString(locale(), { maximumFractionDigits: 3 })
const isoOf = (v: unknown) => {
  const d = toDay(v)
  return d === null ? '' : dayIso(d)
}

/** One line and its delivery date to change (open lines only: a delivered one has left). */
function Line({ line, division }: { line: SalesLine; division: number }) {
  const [saved, setSaved] = useState(isoOf(line.DeliveryDate))
  const [date, setDate] = useState(saved)
  const [sending, setSending] = useState(false)
  const [problem, setProblem] = useState<string | null>(null)
  const [outcome, setOutcome] = useState<WriteOutcome | null>(null)
  // delivered in full (or cancelled): nothing left to deliver, so no date to move
  const open = OPEN_SALES_LINE.includes(Number(line.DeliveryStatus ?? line.Status))

  const save = async (e: FormEvent) => {
    e.preventDefault()
    if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return setProblem(t('planning.sales.dateMissing'))
    setProblem(null)
    setSending(true)
    try {
      const result = await updateSalesLineDelivery(line.ID, date)
      setOutcome(result)
      if (result.state !== 'failed') setSaved(date)
    } catch (err) {
      setProblem(userMessage(err))
    } finally {
      setSending(false)
    }
  }

  const label = t('planning.sales.line', { order: line.OrderNumber, line: line.LineNumber })
  return (
    <li className="flex flex-col gap-1 py-2" data-testid="sales-line" data-order={line.OrderNumber}>
      <form onSubmit={save} className="flex flex-wrap items-end gap-x-3 gap-y-1" noValidate>
        <span className="min-w-0 flex-1 text-sm">
          {line.OrderID ? (
            <ExternalLink page="salesOrder" division={division} id={line.OrderID} code={line.OrderNumber} className="font-semibold">
              {label}
            </ExternalLink>
          ) : (
            <strong>{label}</strong>
          )}{' '}
          · <span className="font-mono">{line.ItemCode}</span> · {num(line.Quantity)}
          {Number(line.QuantityDelivered) > 0 && ` (${t('planning.sales.delivered', { quantity: num(line.QuantityDelivered) })})`}
        </span>
        {open ? (
          <>
            <label className="flex flex-col gap-1 text-sm">
              {t('planning.sales.deliveryDate')}
              <input
                type="date"
                value={date}
                onChange={(e) => setDate(e.target.value)}
                aria-label={t('planning.sales.deliveryDateOf', { line: label })}
                className="min-h-11 rounded border border-slate-300 px-2"
              />
            </label>
            <button
              type="submit"
              disabled={sending || date === saved}
              className="min-h-11 rounded bg-sky-800 px-4 font-medium text-white hover:bg-sky-900 disabled:opacity-50"
            >
              {t('planning.sales.save')}
            </button>
          </>
        ) : (
          <span className="text-sm text-slate-600">
            {t('planning.sales.deliveryDate')}: {saved ? formatDay(saved) : '–'} · {t('planning.sales.closed')}
          </span>
        )}
      </form>
      {problem && (
        <p role="alert" className="text-sm text-red-700">
          {problem}
        </p>
      )}
      {outcome && <WriteStatus outcome={outcome} what={t('planning.sales.changed', { line: label, date: formatDay(date) })} />}
    </li>
  )
}

/** The sales order lines this shop order makes, with their delivery dates to move. */
export function SalesLines({ orderId, division }: { orderId: string; division: number }) {
  const lines = useQuery({ queryKey: planningKeys.salesLines(orderId), queryFn: () => fetchOrderSalesLines(orderId) })
  return (
    <section className="flex flex-col gap-2 border-t border-slate-200 pt-3" aria-label={t('planning.sales.title')}>
      <h3 className="font-semibold">{t('planning.sales.title')}</h3>
      {lines.isPending ? (
        <Loading />
      ) : lines.error ? (
        <p role="alert" className="text-sm text-red-700">
          {userMessage(lines.error)}
        </p>
      ) : lines.data.length === 0 ? (
        <p className="text-sm text-slate-500">{t('planning.sales.none')}</p>
      ) : (
        <ul className="divide-y divide-slate-100" data-testid="sales-lines">
          {lines.data.map((l) => (
            <Line key={l.ID} line={l} division={division} />
          ))}
        </ul>
      )}
    </section>
  )
}
