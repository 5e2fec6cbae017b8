import { useEffect, useRef, useState } from 'react'
import { t } from '../../i18n/index.ts'
import { signal } from '../../lib/feedback.ts'
import { addSerial, serialReport, serialsNeeded, type NumbersReport } from '../../lib/tracking.ts'
import { useScanTaker } from './scans.ts'
import { useReport } from './report.ts'

const control = 'min-h-12 min-w-0 flex-1 rounded-md border border-slate-300 bg-white px-3 text-lg focus:ring-2 focus:ring-sky-600 focus:outline-none'

/**
 * The serial numbers of a booking, one per unit: each scanned (through the screen's scan field
 * while this waits, or into its own field) or typed fills the next; a number already in the list
 * is refused at once. Reports the numbers and what is missing on every change.
 */
export function SerialNumbersInput({
  id,
  quantity,
  onReport,
  inStock = null,
}: {
  id: string
  quantity: number | null
  onReport: (r: NumbersReport) => void
  /** The serial numbers in stock at the place, when known: a number not among them is flagged, not refused (the copy may lag). */
  inStock?: readonly string[] | null
}) {
  const [list, setListState] = useState<string[]>([])
  // two scans within one render each see the other's number
  const listRef = useRef(list)
  const setList = (next: string[]) => {
    listRef.current = next
    setListState(next)
  }
  const [typed, setTyped] = useState('')
  const [note, setNote] = useState<{ ok: boolean; text: string } | null>(null)
  const inputRef = useRef<HTMLInputElement>(null)
  const needed = serialsNeeded(quantity)
  useReport(onReport, serialReport(list, quantity))

  const add = (code: string) => {
    const number = code.trim()
    const next = addSerial(listRef.current, number, quantity)
    if (next.refused) {
      signal(false)
      setNote({ ok: false, text: t(next.refused, { number, quantity: needed ?? '' }) })
      return
    }
    signal(true)
    setList(next.list)
    const known = inStock && inStock.some((s) => s.toLowerCase() === number.toLowerCase())
    setNote(inStock && !known ? { ok: false, text: t('tracking.serialNotHere', { number }) } : { ok: true, text: t('tracking.serialAdded', { number }) })
  }
  // the screen's scan field fills the list while numbers are missing
  useScanTaker(needed === null || list.length < needed, (code) => {
    add(code)
    return true
  })
  useEffect(() => setNote(null), [quantity])

  return (
    <fieldset className="flex min-w-0 flex-col gap-2 rounded-md border border-slate-300 bg-white p-3" data-testid="serial-numbers">
      <legend className="px-1 text-base font-medium">
        {t('tracking.serialTitle')}{' '}
        <span data-testid="serial-progress" className="font-normal text-slate-700">
          {t('tracking.serialProgress', { count: list.length, quantity: needed ?? '–' })}
        </span>
      </legend>
      <p className="text-sm text-slate-600">{t('tracking.serialHint')}</p>
      <div className="flex gap-2">
        <label htmlFor={id} className="sr-only">
          {t('tracking.serialInput')}
        </label>
        <input
          id={id}
          ref={inputRef}
          value={typed}
          autoComplete="off"
          autoCapitalize="off"
          spellCheck={false}
          enterKeyHint="done"
          placeholder={t('tracking.serialInput')}
          onChange={(e) => setTyped(e.target.value)}
          onKeyDown={(e) => {
            // a scanner ends with Enter: it adds the number instead of sending the booking
            if (e.key === 'Enter') {
              e.preventDefault()
              add(typed)
              setTyped('')
            }
          }}
          className={control}
        />
        <button
          type="button"
          onClick={() => {
            add(typed)
            setTyped('')
            inputRef.current?.focus()
          }}
          className="min-h-12 rounded-md border border-sky-800 px-4 font-medium text-sky-900"
        >
          {t('tracking.serialAdd')}
        </button>
      </div>
      {note && (
        <p role={note.ok ? 'status' : 'alert'} data-testid="serial-note" className={`text-sm ${note.ok ? 'text-emerald-800' : 'text-red-700'}`}>
          {note.text}
        </p>
      )}
      {list.length > 0 && (
        <ol className="flex flex-wrap gap-2" data-testid="serial-list">
          {list.map((s) => (
            <li key={s} className="flex items-center gap-1 rounded-full bg-slate-100 py-1 pr-1 pl-3 font-mono text-base">
              {s}
              <button
                type="button"
                aria-label={t('tracking.serialRemove', { number: s })}
                onClick={() => {
                  setList(listRef.current.filter((x) => x !== s))
                  setNote(null)
                }}
                className="h-10 w-10 rounded-full bg-white text-xl leading-none"
              >
                ×
              </button>
            </li>
          ))}
        </ol>
      )}
    </fieldset>
  )
}
