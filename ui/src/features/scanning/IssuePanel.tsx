import { useQueryClient } from '@tanstack/react-query'
import { scanKeys } from '../../api/queries.ts'
import { useState } from 'react'
import { issueMaterial, type LocationStock, type ScannedItem, type WarehouseStock } from '../../api/scan.ts'
import { AsOf } from '../../components/AsOf.tsx'
import { locale, t } from '../../i18n/index.ts'
import { exceeds, formatQuantity, parseQuantity, quantityForInput } from '../../lib/quantity.ts'
import type { LocationRef } from '../../lib/scan.ts'
import { shopOrderStatusName } from '../../lib/status.ts'
import type { ScanCatalogue } from '../../offline/catalogue.ts'
import {
  bookingWords,
  checkQuantity,
  ConfirmOver,
  LocationSelect,
  Panel,
  SubmitBar,
  QuantityField,
  useWrite,
  WriteOutcome,
} from '../../components/scanFields.tsx'
import { stockToIssueFrom } from '../../lib/itemStock.ts'
import { placesInWarehouse } from '../../lib/places.ts'
import { NumbersNotReady, TrackedNumbers } from '../../components/tracking/TrackedNumbers.tsx'
import { trackingOfAny, UNTRACKED } from '../../lib/tracking.ts'
import { suggestedIssue, toIssue } from './toIssue.ts'
import { useKeptIssues, useOrdersNeeding } from './needing.ts'
import { userMessage } from '../../lib/errors.ts'
import { Button } from '../../components/ui/Button.tsx'

const fmt = (n: number) => formatQuantity(n, locale(), 3)

/**
 * Issue the item to an open shop order that has it in its material plan. A quantity above the
 * stock where it is issued from, or above what the line still needs, is booked only after the
 * user confirms it with both figures in front of them.
 */
export function IssuePanel({
  item,
  location,
  itemLocations,
  stock,
  warehouseStock,
  unlocated = new Set<string>(),
  catalogue = null,
}: {
  item: ScannedItem
  location: LocationRef | null
  itemLocations: readonly LocationRef[]
  stock: readonly LocationStock[] | undefined
  warehouseStock: readonly WarehouseStock[] | undefined
  /** The warehouses without storage locations (lower-case IDs): an issue there names none. */
  unlocated?: ReadonlySet<string>
  /** The catalogue this device keeps: the orders while the server cannot be reached. */
  catalogue?: ScanCatalogue | null
}) {
  const answer = useOrdersNeeding(item, catalogue)
  const orders = { ...answer, data: answer.data?.value }
  const kept = useKeptIssues()
  const [picked, setPlan] = useState('')
  // the only order that needs the item is chosen already
  const plan = picked || (orders.data?.length === 1 ? orders.data[0].plan.ID : '')
  // null until the worker types: the form offers what is still to issue
  const [typed, setQty] = useState<string | null>(null)
  const [from, setFrom] = useState(location?.ID ?? itemLocations[0]?.ID ?? '')
  const [tried, setTried] = useState(false)
  const [confirming, setConfirming] = useState(false)
  const write = useWrite(issueMaterial)
  const queryClient = useQueryClient()
  const [numbers, setNumbers] = useState(UNTRACKED)
  const chosen = orders.data?.find((o) => o.plan.ID === plan)
  const all = location && !itemLocations.some((l) => l.ID === location.ID) ? [location, ...itemLocations] : itemLocations
  const choices = placesInWarehouse(all, chosen?.order.Warehouse)
  // the order's warehouse keeps no storage locations: none is asked, and none is sent
  const noLocations = !!chosen?.order.Warehouse && unlocated.has(chosen.order.Warehouse.toLowerCase())
  // a place of another warehouse than the chosen order's gives way to the first of the order's
  const at = noLocations ? '' : choices.some((l) => l.ID === from) ? from : (choices[0]?.ID ?? '')
  const available = stockToIssueFrom(at, chosen?.order.Warehouse, stock, warehouseStock)
  const open = chosen ? toIssue(chosen.plan, kept).open : null
  const suggested = open === null ? null : suggestedIssue(open, available)
  // nothing to suggest (no order chosen, no stock known): empty, so a typed 1 is the worker's, not a default that later moves
  const qty = typed ?? (suggested === null ? '' : quantityForInput(suggested))
  const quantity = parseQuantity(qty)
  const qtyError = tried ? checkQuantity(quantity, item) : null
  const place = (choices.find((l) => l.ID === at)?.Code ?? chosen?.order.WarehouseCode ?? '').trim()
  const over = quantity !== null && (exceeds(quantity, available) || exceeds(quantity, open))
  // a changed figure needs a new look before booking
  const edit =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      set(v)
      setConfirming(false)
    }
  const book = () => {
    if (quantity === null) return
    setConfirming(false)
    write.mutate(
      {
        plan,
        quantity,
        location: at || null,
        numbers: numbers.numbers,
        summary: t('offline.issue', { ...bookingWords(item, quantity), number: chosen?.order.ShopOrderNumber ?? '' }),
      },
      {
        // what is still to issue follows at once: queued or kept, the booking counts (a quantity the worker typed stays for the next one)
        onSuccess: () => void queryClient.invalidateQueries({ queryKey: scanKeys.ordersNeeding(item.ID) }),
      },
    )
  }

  return (
    <Panel
      title={t('scanning.issueTitle')}
      onSubmit={() => {
        setTried(true)
        if (!plan || checkQuantity(quantity, item) || quantity === null) return
        if (over) setConfirming(true)
        else book()
      }}
    >
      {orders.isPending && <p role="status">{t('scanning.loading')}</p>}
      <AsOf asOf={answer.data?.asOf} compact title={(time) => t('scanning.keptTitle', { time })} />
      {orders.error && (
        <p role="alert" className="text-red-700">
          {userMessage(orders.error)}
        </p>
      )}
      {orders.data?.length === 0 && <p className="text-slate-700">{t('scanning.noOrdersNeeding')}</p>}
      {orders.data && orders.data.length > 0 && (
        <fieldset className="flex flex-col gap-2">
          <legend className="mb-1 text-base font-medium">{t('scanning.chooseShopOrder')}</legend>
          {orders.data.map(({ order, plan: p }) => {
            const need = toIssue(p, kept)
            return (
              <label
                key={p.ID}
                className={`flex min-h-14 cursor-pointer items-center gap-3 rounded-md border px-3 py-2 ${plan === p.ID ? 'border-sky-700 bg-sky-100' : 'border-slate-300 bg-white'}`}
              >
                <input type="radio" name="issue-plan" value={p.ID} checked={plan === p.ID} onChange={() => edit(setPlan)(p.ID)} className="h-5 w-5" />
                <span className="flex flex-col">
                  <span className="font-semibold">
                    {t('scanning.shopOrderNumber', { number: order.ShopOrderNumber })} · {order.ItemCode}
                  </span>
                  <span className="text-sm text-slate-600">
                    {t('scanning.planned', { quantity: fmt(p.PlannedQuantity ?? 0) })} · {t('scanning.stillToIssue', { quantity: fmt(need.open) })}
                    {need.waiting > 0 && <> ({t('scanning.issueWaiting', { quantity: fmt(need.waiting) })})</>} · {shopOrderStatusName(order.Status)}
                  </span>
                </span>
              </label>
            )
          })}
          {tried && !plan && (
            <span role="alert" className="text-sm text-red-700">
              {t('scanning.pickShopOrder')}
            </span>
          )}
        </fieldset>
      )}
      <QuantityField id="issue-qty" label={t('scanning.quantity')} value={qty} onChange={edit(setQty)} error={qtyError} />
      {noLocations ? (
        <p className="text-base text-slate-700">{t('scanning.noLocationsThere', { warehouse: chosen?.order.WarehouseCode?.trim() ?? '' })}</p>
      ) : (
        <LocationSelect
          id="issue-from"
          label={t('scanning.fromLocation')}
          value={at}
          onChange={edit(setFrom)}
          locations={choices}
          empty={t('scanning.defaultLocation')}
        />
      )}
      <TrackedNumbers
        key={write.round}
        id="issue-numbers"
        tracking={trackingOfAny(chosen?.plan, item)}
        mode="take"
        item={item.ID}
        warehouse={choices.find((l) => l.ID === at)?.Warehouse ?? chosen?.order.Warehouse ?? null}
        location={at || null}
        quantity={quantity}
        onReport={setNumbers}
      />
      <NumbersNotReady report={numbers} />
      <SubmitBar>
        {confirming && quantity !== null && chosen && (
          <ConfirmOver
            message={t('scanning.issueOver', {
              quantity: fmt(quantity),
              stock: available === null ? '–' : fmt(available),
              place,
              open: fmt(open ?? 0),
              number: chosen.order.ShopOrderNumber,
            })}
            confirm={t('scanning.issueAnyway')}
            onConfirm={book}
            onBack={() => {
              setConfirming(false)
              document.getElementById('issue-qty')?.focus()
            }}
          />
        )}
        <Button type="submit" disabled={write.isPending || !orders.data?.length || !!numbers.problem} variant="primary" size="lg">
          {t('scanning.issueSubmit')}
        </Button>
        <WriteOutcome error={write.error} data={write.data} />
      </SubmitBar>
    </Panel>
  )
}
