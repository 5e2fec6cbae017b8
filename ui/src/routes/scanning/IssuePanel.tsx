import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { issueMaterial, ordersNeeding, type ScannedItem } from '../../api/scanning.ts'
import { locale, t } from '../../i18n/index.ts'
import { parseQuantity, type LocationRef } from '../../lib/scan.ts'
import { shopOrderStatusName } from '../../lib/status.ts'
import { bigButton, checkQuantity, LocationSelect, Panel, QuantityField, useWrite, WriteOutcome } from './fields.tsx'

/** Issue the item to an open shop order that has it in its material plan. */
export function IssuePanel({
  item,
  location,
  itemLocations,
}: {
  item: ScannedItem
  location: LocationRef | null
  itemLocations: readonly LocationRef[]
}) {
  const orders = useQuery({ queryKey: ['scan', 'ordersNeeding', item.ID], queryFn: () => ordersNeeding(item.ID) })
  const [plan, setPlan] = useState('')
  const [qty, setQty] = useState('1')
  const [from, setFrom] = useState(location?.ID ?? itemLocations[0]?.ID ?? '')
  const [tried, setTried] = useState(false)
  const write = useWrite(issueMaterial)
  const quantity = parseQuantity(qty)
  const qtyError = tried ? checkQuantity(quantity) : null
  const choices = location && !itemLocations.some((l) => l.ID === location.ID) ? [location, ...itemLocations] : itemLocations

  return (
    <Panel
      title={t('scanning.issueTitle')}
      onSubmit={() => {
        setTried(true)
        if (!plan || checkQuantity(quantity) || quantity === null) return
        write.mutate({ plan, quantity, location: from || null })
      }}
    >
      {orders.isPending && <p role="status">{t('scanning.loading')}</p>}
      {orders.error && <p role="alert" className="text-red-700">{orders.error.message}</p>}
      {orders.data?.length === 0 && <p className="text-slate-700">{t('scanning.noOrdersNeeding')}</p>}
      {orders.data && orders.data.length > 0 && (
        <fieldset className="flex flex-col gap-2">
          <legend className="mb-1 text-base font-medium">{t('scanning.chooseShopOrder')}</legend>
          {orders.data.map(({ order, plan: p }) => (
            <label
              key={p.ID}
              className={`flex min-h-14 cursor-pointer items-center gap-3 rounded-md border px-3 py-2 ${plan === p.ID ? 'border-sky-700 bg-sky-100' : 'border-slate-300 bg-white'}`}
            >
              <input type="radio" name="issue-plan" value={p.ID} checked={plan === p.ID} onChange={() => setPlan(p.ID)} className="h-5 w-5" />
              <span className="flex flex-col">
                <span className="font-semibold">
                  {t('scanning.shopOrderNumber', { number: order.ShopOrderNumber })} · {order.ItemCode}
                </span>
                <span className="text-sm text-slate-600">
                  {t('scanning.planned', { quantity: (p.PlannedQuantity ?? 0).toLocaleString(locale()) })} ·{' '}
                  {shopOrderStatusName(order.Status)}
                </span>
              </span>
            </label>
          ))}
          {tried && !plan && (
            <span role="alert" className="text-sm text-red-700">
              {t('scanning.pickShopOrder')}
            </span>
          )}
        </fieldset>
      )}
      <QuantityField id="issue-qty" label={t('scanning.quantity')} value={qty} onChange={setQty} error={qtyError} />
      <LocationSelect id="issue-from" label={t('scanning.fromLocation')} value={from} onChange={setFrom} locations={choices} empty={t('scanning.defaultLocation')} />
      <button type="submit" disabled={write.isPending || !orders.data?.length} className={bigButton}>
        {t('scanning.issueSubmit')}
      </button>
      <WriteOutcome error={write.error} data={write.data} />
    </Panel>
  )
}
