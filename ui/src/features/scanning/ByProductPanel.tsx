import { useState } from 'react'
import { receiveByProduct, type MaterialPlan, type ScanShopOrder } from '../../api/scan.ts'
import { locale, t } from '../../i18n/index.ts'
import { formatQuantity, parseQuantity } from '../../lib/quantity.ts'
import type { LocationRef } from '../../lib/scan.ts'
import { bookingWords, checkQuantity, control, field, Panel, SubmitBar, QuantityField, useWrite, WriteOutcome } from '../../components/scanFields.tsx'
import { NumbersNotReady, TrackedNumbers } from '../../components/tracking/TrackedNumbers.tsx'
import { trackingOf, UNTRACKED } from '../../lib/tracking.ts'
import { Button } from '../../components/ui/Button.tsx'

const secondaryButton =
  'min-h-12 w-full rounded-md border border-slate-400 bg-white px-4 py-2 text-base font-medium text-slate-900 hover:bg-slate-50 focus:outline-none focus:ring-2 focus:ring-slate-500'

const fmt = (n: number | null | undefined) => formatQuantity(n ?? 0, locale(), 3)

/** What a by-product line expects: its planned quantity (the copy does not say how much came in already). */
export function expected(line: MaterialPlan): string {
  return line.PlannedQuantity && line.PlannedQuantity > 0 ? String(line.PlannedQuantity) : ''
}

/**
 * Receive a by-product of the shop order (a material line of Type 2) into stock: at the location
 * in context when it lies in the order's warehouse, else the order's default; a by-product
 * tracked by serial or batch asks for its numbers, as a finished product does.
 */
export function ByProductPanel({ order, lines, into }: { order: ScanShopOrder; lines: MaterialPlan[]; into: LocationRef | null }) {
  const [lineId, setLineId] = useState(lines.length === 1 ? lines[0].ID : '')
  const line = lines.find((l) => l.ID === lineId) ?? null
  const [qty, setQty] = useState(line ? expected(line) : '')
  const [tried, setTried] = useState(false)
  const [numbers, setNumbers] = useState(UNTRACKED)
  const write = useWrite(receiveByProduct)
  const quantity = parseQuantity(qty)
  const qtyError = tried ? checkQuantity(quantity) : null
  const words = (l: MaterialPlan, q: number) => bookingWords({ Code: l.ItemCode ?? '', Unit: l.Unit ?? null }, q)
  // closed until asked for: its numbers input then takes the scans, not the finished product's;
  // closed again once a receipt is taken (queued, sent or kept), so the next scan is an item's
  // again; its outcome stays beside the button
  const [open, setOpen] = useState(false)
  const [closedFor, setClosedFor] = useState<typeof write.data>(undefined)
  if (write.data && write.data !== closedFor && write.data.state !== 'failed') {
    setClosedFor(write.data)
    setOpen(false)
  }
  if (!open) {
    return (
      <div className="flex flex-col gap-2">
        <button type="button" onClick={() => setOpen(true)} className={secondaryButton}>
          {t('scanning.byProductOpen', { count: lines.length })}
        </button>
        <WriteOutcome error={null} data={write.data} />
      </div>
    )
  }

  return (
    <Panel
      title={t('scanning.byProductTitle')}
      onSubmit={() => {
        setTried(true)
        if (!line || quantity === null || checkQuantity(quantity)) return
        write.mutate({
          plan: line.ID,
          quantity,
          location: into?.ID ?? null,
          numbers: numbers.numbers,
          summary: t('offline.byProduct', { ...words(line, quantity), number: order.ShopOrderNumber }),
        })
      }}
    >
      <div className={field}>
        <label htmlFor="by-product-line">{t('scanning.byProductLine')}</label>
        <select
          id="by-product-line"
          value={lineId}
          onChange={(e) => {
            setLineId(e.target.value)
            const l = lines.find((x) => x.ID === e.target.value)
            if (l) setQty(expected(l))
          }}
          className={control}
        >
          {lines.length > 1 && <option value="">{t('scanning.selectOne')}</option>}
          {lines.map((l) => (
            <option key={l.ID} value={l.ID}>
              {t('scanning.byProductOption', {
                item: l.ItemCode ?? '',
                description: l.ItemDescription ?? '',
                planned: fmt(l.PlannedQuantity),
              })}
            </option>
          ))}
        </select>
        {tried && !line && (
          <span role="alert" className="text-sm font-normal text-red-700">
            {t('scanning.pickByProduct')}
          </span>
        )}
      </div>
      <QuantityField id="by-product-qty" label={t('scanning.quantity')} value={qty} onChange={setQty} error={qtyError} />
      {line && (
        <TrackedNumbers
          key={`${line.ID}-${write.round}`}
          id="by-product-numbers"
          tracking={trackingOf(line)}
          mode="receive"
          item={line.Item}
          quantity={quantity}
          onReport={setNumbers}
        />
      )}
      <NumbersNotReady report={numbers} />
      <SubmitBar>
        <Button type="submit" disabled={write.isPending || !!numbers.problem} variant="primary" size="lg">
          {t('scanning.byProductSubmit')}
        </Button>
        <WriteOutcome error={write.error} data={write.data} />
      </SubmitBar>
    </Panel>
  )
}
