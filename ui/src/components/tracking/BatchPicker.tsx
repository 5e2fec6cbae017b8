import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { locale, t } from '../../i18n/index.ts'
import { formatDate, formatAsOf } from '../../lib/dateTime.ts'
import { signal } from '../../lib/feedback.ts'
import { formatQuantity, parseQuantity, quantityForInput } from '../../lib/quantity.ts'
import { fetchNumbers, trackingKeys, type NumbersAnswer, type Place } from '../../api/tracking.ts'
import { batchReport, pickFirst, prefillBatches, type BatchLine, type NumbersReport, type StockBatch } from '../../lib/tracking.ts'
import { useScanTaker } from './scans.ts'
import { useReport } from './report.ts'
import { userMessage } from '../../lib/errors.ts'

const control = 'min-h-12 min-w-0 rounded-md border border-slate-300 bg-white px-3 text-lg focus:ring-2 focus:ring-sky-600 focus:outline-none'
const smallButton = 'min-h-12 rounded-md border border-sky-800 px-3 font-medium text-sky-900'

const blank: BatchLine = { number: '', quantity: '' }

/** The batches in stock at the place, or null while none can be listed (offline with nothing kept, a read that failed). */
export function useStockNumbers(place: Place | null) {
  return useQuery<NumbersAnswer | null>({
    queryKey: trackingKeys.numbers(place ?? { item: '' }),
    queryFn: () => fetchNumbers(place!),
    enabled: !!place,
    retry: false,
    staleTime: 30_000,
  })
}

/**
 * The batches of a booking. To issue, move or count (`take`): the batches in stock at the place,
 * first-expiring first, each with the quantity taken from it, prefilled in that order up to the
 * booking's quantity until the operator changes one; a batch tapped (or its number scanned) is
 * taken from first. To receive, or when no list can be had: batch numbers typed or scanned with
 * their quantities, as many lines as needed. Reports the numbers and what is missing.
 */
export function BatchPicker({
  id,
  mode,
  place,
  quantity,
  onReport,
}: {
  id: string
  mode: 'take' | 'receive'
  /** Where the stock is taken from (take), or null when it cannot be asked (receive, an item known by its code only). */
  place: Place | null
  quantity: number | null
  onReport: (r: NumbersReport) => void
}) {
  const listed = useStockNumbers(mode === 'take' ? place : null)
  const answer = listed.data ?? null
  const stock = answer?.value.batches ?? []
  // the operator's own order and figures, once they change one; until then the prefill follows the quantity
  const [order, setOrder] = useState<string[] | null>(null)
  const [taken, setTaken] = useState<Record<string, string> | null>(null)
  const [typed, setTyped] = useState<BatchLine[]>([])
  const [note, setNote] = useState<string | null>(null)

  const batches = order ? order.map((n) => stock.find((b) => b.number === n)).filter((b): b is StockBatch => !!b) : stock
  const prefill = prefillBatches(batches, quantity)
  const listLines: BatchLine[] = batches.map((b, i) => ({ number: b.number, quantity: taken?.[b.number] ?? quantityForInput(prefill[i]) }))
  // without a list there is always a line to type into
  const typedLines = typed.length ? typed : batches.length === 0 ? [blank] : []
  // a single typed batch with no quantity of its own is the whole booking
  const effectiveTyped =
    batches.length === 0 && typedLines.length === 1 && !typedLines[0].quantity.trim() && quantity !== null
      ? [{ ...typedLines[0], quantity: quantityForInput(quantity) }]
      : typedLines
  const report = batchReport([...listLines, ...effectiveTyped], quantity, parseQuantity)
  useReport(onReport, report)

  const pick = (number: string) => {
    const next = pickFirst(batches, number)
    const fill = prefillBatches(next, quantity)
    setOrder(next.map((b) => b.number))
    setTaken(Object.fromEntries(next.map((b, i) => [b.number, quantityForInput(fill[i])])))
    setNote(t('tracking.batchPicked', { number: next[0]?.number ?? number }))
  }
  const setTypedLine = (i: number, line: BatchLine) => setTyped(typedLines.map((l, k) => (k === i ? line : l)))
  const receiveScan = (code: string) => {
    const number = code.trim()
    const lines = typedLines
    const free = lines.findIndex((l) => !l.number.trim())
    if (free >= 0) setTyped(lines.map((l, k) => (k === free ? { ...l, number } : l)))
    else {
      const sum = report.numbers.BatchNumbers?.reduce((s, b) => s + b.Quantity, 0) ?? 0
      const rest = quantity !== null ? quantity - sum : 0
      setTyped([...lines, { number, quantity: rest > 0 ? quantityForInput(rest) : '' }])
    }
    setNote(null)
  }

  // a scanned batch number: in the list, it is picked; to receive (or with no list), it fills the next line while batches are missing
  const typing = mode === 'receive' || batches.length === 0
  useScanTaker(batches.length > 0 || (typing && report.problem !== null), (code) => {
    const inList = batches.find((b) => b.number.toLowerCase() === code.trim().toLowerCase())
    if (inList) {
      signal(true)
      pick(inList.number)
      return true
    }
    if (typing && report.problem !== null) {
      signal(true)
      receiveScan(code)
      return true
    }
    return false
  })

  return (
    <fieldset className="flex min-w-0 flex-col gap-2 rounded-md border border-slate-300 bg-white p-3" data-testid="batch-picker">
      <legend className="px-1 text-base font-medium">{t('tracking.batchTitle')}</legend>
      <p className="text-sm text-slate-600">{mode === 'take' && batches.length > 0 ? t('tracking.batchHint') : t('tracking.batchReceiveHint')}</p>
      {mode === 'take' && listed.isPending && !!place && <p role="status">{t('tracking.batchLoading')}</p>}
      {listed.error && (
        <p role="alert" className="text-sm text-red-700">
          {t('tracking.readFailed', { message: userMessage(listed.error) })}
        </p>
      )}
      {mode === 'take' && listed.isSuccess && !answer && <p className="text-sm text-amber-800">{t('tracking.batchNoList')}</p>}
      {mode === 'take' && answer && stock.length === 0 && <p className="text-sm text-amber-800">{t('tracking.batchNone')}</p>}
      {answer?.asOf && <p className="text-sm text-slate-600">{t('tracking.batchKept', { time: formatAsOf(answer.asOf) })}</p>}
      {batches.length > 0 && (
        <ul className="flex flex-col gap-2" data-testid="batch-list">
          {batches.map((b, i) => (
            <li key={b.number} className="flex items-center gap-2 rounded-md border border-slate-200 p-2" data-testid="batch-row">
              <button
                type="button"
                onClick={() => pick(b.number)}
                aria-label={t('tracking.batchPick', { number: b.number })}
                className={`flex min-h-12 min-w-0 flex-1 flex-col items-start rounded-md px-2 text-left ${i === 0 ? 'bg-sky-50' : ''}`}
              >
                <span className="font-mono font-semibold">{b.number}</span>
                <span className="text-sm text-slate-600">
                  {t('tracking.batchInStock', { quantity: formatQuantity(b.quantity, locale(), 3) })} ·{' '}
                  {b.expiry ? t('tracking.batchExpiry', { date: formatDate(b.expiry.slice(0, 10)) }) : t('tracking.batchNoExpiry')}
                  {b.location_code ? ` · ${t('tracking.batchPlace', { place: b.location_code })}` : ''}
                </span>
              </button>
              <input
                id={`${id}-take-${i}`}
                aria-label={t('tracking.batchTakeQuantity', { number: b.number })}
                inputMode="decimal"
                autoComplete="off"
                value={listLines[i].quantity}
                onChange={(e) => {
                  setOrder(batches.map((x) => x.number))
                  setTaken({ ...Object.fromEntries(listLines.map((l) => [l.number, l.quantity])), [b.number]: e.target.value })
                }}
                className={`${control} w-24 shrink-0`}
              />
            </li>
          ))}
        </ul>
      )}
      {typedLines.map((l, i) => (
        <div key={i} className="flex flex-wrap gap-2" data-testid="batch-line">
          <input
            id={`${id}-number-${i}`}
            aria-label={t('tracking.batchLineNumber', { line: i + 1 })}
            placeholder={t('tracking.batchNumber')}
            autoComplete="off"
            autoCapitalize="off"
            spellCheck={false}
            value={l.number}
            onChange={(e) => setTypedLine(i, { ...l, number: e.target.value })}
            onKeyDown={(e) => {
              // a scanner's Enter ends the batch number, it does not send the booking
              if (e.key === 'Enter') {
                e.preventDefault()
                document.getElementById(`${id}-qty-${i}`)?.focus()
              }
            }}
            className={`${control} flex-1`}
          />
          <input
            id={`${id}-qty-${i}`}
            aria-label={t('tracking.batchLineQuantity', { line: i + 1 })}
            placeholder={effectiveTyped[i] !== l ? effectiveTyped[i].quantity : t('tracking.batchQuantity')}
            inputMode="decimal"
            autoComplete="off"
            value={l.quantity}
            onChange={(e) => setTypedLine(i, { ...l, quantity: e.target.value })}
            className={`${control} w-24 shrink-0`}
          />
          {(typed.length > 1 || batches.length > 0) && (
            <button
              type="button"
              aria-label={t('tracking.batchRemoveLine', { line: i + 1 })}
              onClick={() => setTyped(typedLines.filter((_, k) => k !== i))}
              className="h-12 w-12 shrink-0 rounded-md border border-slate-300 text-xl"
            >
              ×
            </button>
          )}
          {mode === 'receive' && (
            <label className="flex w-full items-center gap-2 text-sm text-slate-700">
              <span className="shrink-0">{t('tracking.batchExpiryInput')}</span>
              <input
                id={`${id}-expiry-${i}`}
                type="date"
                aria-label={t('tracking.batchLineExpiry', { line: i + 1 })}
                value={l.expiry ?? ''}
                onChange={(e) => setTypedLine(i, { ...l, expiry: e.target.value })}
                className={`${control} min-w-0 flex-1 text-base`}
              />
            </label>
          )}
        </div>
      ))}
      <button type="button" onClick={() => setTyped([...typedLines, blank])} className={`${smallButton} self-start`}>
        {t('tracking.batchAddLine')}
      </button>
      {note && (
        <p role="status" className="text-sm text-emerald-800">
          {note}
        </p>
      )}
    </fieldset>
  )
}
