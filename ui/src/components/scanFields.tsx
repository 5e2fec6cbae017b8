// Pieces the action panels share: big touch targets, a quantity field that says what is wrong,
// a storage location picker, and the write with its outbox state and sound. The Counts screen
// counts with the same quantity field, so they live in components/.
import { useMutation } from '@tanstack/react-query'
import { useEffect, useRef, useState, type ReactNode } from 'react'
import { outcomeOf, type BookResult } from '../api/writes.ts'
import { getLanguage, locale, t } from '../i18n/index.ts'
import { signal } from '../lib/feedback.ts'
import type { ScannedItem } from '../api/scan.ts'
import { fitsUnit, formatQuantity, fractionsAllowed, readWithThousands } from '../lib/quantity.ts'
import type { LocationRef } from '../lib/scan.ts'
import { isWarehousePlace } from '../lib/places.ts'
import { WriteStatus } from './WriteStatus.tsx'
import { userMessage } from '../lib/errors.ts'
import { Button } from './ui/Button.tsx'

export const field = 'flex flex-col gap-1 text-base font-medium'
export const control = 'min-h-12 w-full rounded-md border border-slate-300 bg-white px-3 text-lg font-normal focus:ring-2 focus:ring-sky-600 focus:outline-none'

/** The words a booking's summary names its item by: quantity, unit and code. */
export function bookingWords(item: Pick<ScannedItem, 'Code' | 'Unit'>, quantity: number) {
  return { quantity: formatQuantity(quantity, locale(), 3), unit: item.Unit?.trim() ?? '', item: item.Code }
}

export function locationLabel(l: LocationRef): string {
  // a warehouse without storage locations is picked as a whole
  if (isWarehousePlace(l.ID)) {
    const name = [l.WarehouseCode?.trim(), l.WarehouseDescription ? `(${l.WarehouseDescription})` : ''].filter(Boolean).join(' ')
    return t('scanning.wholeWarehouse', { warehouse: name })
  }
  const wh = l.WarehouseCode ? `${l.WarehouseCode.trim()} · ` : ''
  return `${wh}${l.Code}${l.Description ? ` (${l.Description})` : ''}`
}

export function QuantityField({
  id,
  label,
  value,
  onChange,
  error,
}: {
  id: string
  label: string
  value: string
  onChange: (v: string) => void
  error: string | null
}) {
  // "2.500" kg in Dutch is read as 2500: said under the field, never silently
  const thousands = readWithThousands(value)
  return (
    <div className={field}>
      <label htmlFor={id}>{label}</label>
      <input
        id={id}
        inputMode="decimal"
        autoComplete="off"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={!!error}
        aria-describedby={error ? `${id}-error` : undefined}
        className={control}
      />
      {error && (
        <span id={`${id}-error`} role="alert" className="text-sm font-normal text-red-700">
          {error}
        </span>
      )}
      {!error && thousands !== null && (
        <span data-testid={`${id}-read`} className="text-sm font-normal text-amber-800">
          {t('scanning.readAsThousands', {
            number: String(thousands),
            ...(getLanguage() === 'nl' ? { mark: '.', decimal: ',' } : { mark: ',', decimal: '.' }),
          })}
        </span>
      )}
    </div>
  )
}

export function LocationSelect({
  id,
  label,
  value,
  onChange,
  locations,
  empty,
}: {
  id: string
  label: string
  value: string
  onChange: (v: string) => void
  locations: readonly LocationRef[]
  empty?: string
}) {
  return (
    <div className={field}>
      <label htmlFor={id}>{label}</label>
      <select id={id} value={value} onChange={(e) => onChange(e.target.value)} className={control}>
        {empty !== undefined && <option value="">{empty}</option>}
        {locations.map((l) => (
          <option key={l.ID} value={l.ID}>
            {locationLabel(l)}
          </option>
        ))}
      </select>
    </div>
  )
}

/**
 * A write to Exact Online through the outbox: a sound for the first answer, then its state.
 * `round` counts the bookings taken (delivered, or kept on the device): a serial or batch number
 * used by one is not offered for the next, so the numbers' fields start afresh under
 * `key={round}`. One still on its way may yet be refused, and then its numbers are corrected.
 */
export function useWrite<I>(send: (input: I) => Promise<BookResult>) {
  const [round, setRound] = useState(0)
  const mutation = useMutation({
    mutationFn: send,
    onSuccess: (r) => {
      signal(r.state !== 'failed')
      if (r.state === 'delivered' || r.state === 'kept') setRound((n) => n + 1)
    },
    onError: () => signal(false),
  })
  return { ...mutation, round }
}

export function WriteOutcome({ error, data }: { error: Error | null; data: BookResult | undefined }) {
  if (error) {
    return (
      <p role="alert" data-testid="write-status" data-state="refused" className="rounded-md bg-red-50 p-3 text-base text-red-800">
        {t('scanning.refused', { message: userMessage(error) })}
      </p>
    )
  }
  if (data) return <WriteStatus outcome={outcomeOf(data)} look="card" />
  return null
}

/**
 * The submit button and the result of the last booking, held at the bottom of a handheld's
 * screen while the form runs on below it: after a scan, nothing a worker must tap or read is
 * off the first screen. In place on wider screens.
 */
export function SubmitBar({ children }: { children: ReactNode }) {
  return (
    <div
      data-testid="submit-bar"
      className="sticky bottom-0 z-10 -mx-3 -mb-3 flex flex-col gap-2 rounded-b-lg border-t border-sky-200 bg-white/95 p-3 shadow-[0_-2px_6px_rgba(15,23,42,0.08)] md:static md:mx-0 md:mb-0 md:rounded-none md:border-0 md:bg-transparent md:p-0 md:shadow-none"
    >
      {children}
    </div>
  )
}

export function Panel({ title, children, onSubmit }: { title: string; children: ReactNode; onSubmit: () => void }) {
  return (
    <form
      onSubmit={(e) => {
        e.preventDefault()
        onSubmit()
      }}
      className="flex flex-col gap-3 rounded-lg border border-sky-200 bg-sky-50/40 p-3"
      aria-label={title}
    >
      <h3 className="text-lg font-semibold text-sky-900">{title}</h3>
      {children}
    </form>
  )
}

/**
 * The quantity as a number above zero that the item's unit can hold, or the message that says
 * why not. `item` without Exact's fraction flag takes any number.
 */
export function checkQuantity(q: number | null, item?: Pick<ScannedItem, 'Unit' | 'IsFractionAllowedItem'>): string | null {
  if (q === null) return t('scanning.badQuantity')
  if (q <= 0) return t('scanning.quantityPositive')
  if (item && !fitsUnit(q, fractionsAllowed(item.IsFractionAllowedItem))) return t('scanning.wholeUnits', { unit: item.Unit?.trim() ?? '' })
  return null
}

/**
 * A quantity above what is expected: says so with the figures and asks before booking. It is
 * scrolled into view (the scan field keeps the focus for the next scan), so a handheld user sees
 * it at once.
 */
export function ConfirmOver({ message, confirm, onConfirm, onBack }: { message: string; confirm: string; onConfirm: () => void; onBack: () => void }) {
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    // a block body: newer browsers return a promise from scrollIntoView, which is no cleanup
    ref.current?.scrollIntoView?.({ block: 'nearest' })
  }, [])
  return (
    <div
      ref={ref}
      role="alertdialog"
      aria-labelledby="confirm-over-title"
      aria-describedby="confirm-over-text"
      className="flex flex-col gap-2 rounded-md border border-amber-400 bg-amber-50 p-3"
    >
      <p id="confirm-over-title" className="font-semibold text-amber-900">
        {t('scanning.confirmTitle')}
      </p>
      <p id="confirm-over-text" className="text-base text-amber-900">
        {message}
      </p>
      <div className="flex flex-wrap gap-2">
        <Button type="button" onClick={onConfirm} variant="primary" size="lg">
          {confirm}
        </Button>
        <Button type="button" onClick={onBack} variant="secondary" size="lg">
          {t('scanning.changeQuantity')}
        </Button>
      </div>
    </div>
  )
}
