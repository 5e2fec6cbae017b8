import { useEffect, useRef } from 'react'
import { locale, t } from '../../i18n/index.ts'
import { formatQuantity } from '../../lib/quantity.ts'
import { isCatalogueRef } from '../../offline/catalogue.ts'
import type { Place } from '../../api/tracking.ts'
import { BatchPicker, useStockNumbers } from './BatchPicker.tsx'
import { UNTRACKED, type NumbersReport, type Tracking } from '../../lib/tracking.ts'
import { SerialNumbersInput } from './SerialNumbersInput.tsx'

/**
 * The numbers a booking of a tracked item asks for: serial numbers, or batches (taken from the
 * stock at `place`, or typed for a receipt); nothing for an item that is not tracked.
 */
export function TrackedNumbers({
  id,
  tracking,
  mode,
  item,
  warehouse = null,
  location = null,
  quantity,
  onReport,
}: {
  id: string
  tracking: Tracking
  mode: 'take' | 'receive'
  /** The item's ID (a catalogue's `item:{code}` reads no stock list). */
  item: string
  warehouse?: string | null
  location?: string | null
  quantity: number | null
  onReport: (r: NumbersReport) => void
}) {
  const report = useRef(onReport)
  useEffect(() => {
    report.current = onReport
  })
  useEffect(() => {
    if (tracking === 'none') report.current(UNTRACKED)
  }, [tracking])
  const place: Place | null = mode === 'take' && item && !isCatalogueRef(item) ? { item, warehouse, location } : null
  // a serial number out of stock here is flagged while it is scanned (Exact has the last word)
  const serials = useStockNumbers(tracking === 'serial' ? place : null)
  if (tracking === 'serial') {
    const inStock = serials.data ? serials.data.value.serials.map((s) => s.number) : null
    return <SerialNumbersInput id={id} quantity={quantity} onReport={onReport} inStock={inStock} />
  }
  if (tracking === 'batch') {
    // another place lists other batches: the picker starts afresh
    return <BatchPicker key={`${place?.warehouse ?? ''}-${place?.location ?? ''}`} id={id} mode={mode} place={place} quantity={quantity} onReport={onReport} />
  }
  return null
}

/** Why the booking cannot be sent yet, beside its button (nothing when its numbers are complete). */
export function NumbersNotReady({ report }: { report: NumbersReport }) {
  if (!report.problem) return null
  const values = Object.fromEntries(
    Object.entries(report.problem.values ?? {}).map(([k, v]) => [k, typeof v === 'number' ? formatQuantity(v, locale(), 6) : v]),
  )
  return (
    <p role="status" data-testid="numbers-not-ready" className="text-sm text-amber-900">
      {t(report.problem.key, values)}
    </p>
  )
}
