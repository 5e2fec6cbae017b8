import { useQuery } from '@tanstack/react-query'
import { scanKeys } from '../../api/queries.ts'
import { useState } from 'react'
import { byProductsOf, ordersMaking, receiveShopOrder, type ScannedItem, type ScanShopOrder } from './api.ts'
import { locale, t } from '../../i18n/index.ts'
import { exceeds, formatQuantity, parseQuantity } from '../../lib/quantity.ts'
import type { LocationRef } from '../../lib/scan.ts'
import { LabelPanel } from './LabelPanel.tsx'
import { ByProductPanel } from './ByProductPanel.tsx'
import { AsOf } from '../../components/AsOf.tsx'
import { bigButton, bookingWords, checkQuantity, ConfirmOver, control, field, locationLabel, Panel, SubmitBar, QuantityField, useWrite, WriteOutcome } from './fields.tsx'
import { isCatalogueRef, liveOrKept, type ScanCatalogue } from '../../offline/catalogue.ts'
import { NumbersNotReady, TrackedNumbers } from '../tracking/TrackedNumbers.tsx'
import { trackingOf, UNTRACKED } from '../tracking/logic.ts'

const fmt = (n: number | null | undefined) => formatQuantity(n ?? 0, locale(), 3)

function remaining(o: ScanShopOrder): number {
  return Math.max(0, (o.PlannedQuantity ?? 0) - (o.ProducedQuantity ?? 0))
}

/**
 * Receive finished products of a shop order into stock (at the location in context, if it is in
 * the order's warehouse), and print the order's labels.
 */
export function ReceivePanel({
  item,
  location,
  scanned,
  catalogue = null,
}: {
  item: ScannedItem
  location: LocationRef | null
  scanned: ScanShopOrder | null
  /** The catalogue this device keeps: the orders while the server cannot be reached. */
  catalogue?: ScanCatalogue | null
}) {
  // out of reach of the server, or for an item shown from the catalogue (named by its code, which
  // the server's reads do not take), the orders this device's copy has
  const answer = useQuery({
    queryKey: scanKeys.ordersMaking(item.ID),
    queryFn: () => liveOrKept(() => ordersMaking(item.ID), (c) => c.ordersMaking(item.Code), catalogue, { keptOnly: isCatalogueRef(item.ID) }),
  })
  const making = { ...answer, data: answer.data?.value }
  const orders = [...(scanned ? [scanned] : []), ...(making.data ?? []).filter((o) => o.ID !== scanned?.ID)]
  const [orderId, setOrderId] = useState(scanned?.ID ?? '')
  const order = orders.find((o) => o.ID === orderId) ?? null
  const [qty, setQty] = useState(scanned ? String(remaining(scanned) || 1) : '1')
  const [tried, setTried] = useState(false)
  // more than the order still has open is a real over-production, booked after a confirmation
  const [confirming, setConfirming] = useState(false)
  const byProducts = useQuery({
    queryKey: scanKeys.byProducts(orderId),
    queryFn: () => byProductsOf(orderId),
    enabled: !!orderId && !isCatalogueRef(orderId),
  })
  const write = useWrite(receiveShopOrder)
  const [numbers, setNumbers] = useState(UNTRACKED)
  const quantity = parseQuantity(qty)
  const qtyError = tried ? checkQuantity(quantity, item) : null
  // a location of another warehouse would be refused: the order's own default is used then
  const into = location && order && location.Warehouse === order.Warehouse ? location : null

  return (
    <>
      <Panel
        title={t('scanning.receiveTitle')}
        onSubmit={() => {
          setTried(true)
          if (!order || quantity === null || checkQuantity(quantity, item)) return
          if (exceeds(quantity, remaining(order))) setConfirming(true)
          else write.mutate({ shopOrder: order.ID, quantity, location: into?.ID ?? null, numbers: numbers.numbers, summary: t('offline.receive', { ...bookingWords(item, quantity), number: order.ShopOrderNumber }) })
        }}
      >
        {making.isPending && !scanned && <p role="status">{t('scanning.loading')}</p>}
        <AsOf asOf={answer.data?.asOf} compact title={(time) => t('scanning.keptTitle', { time })} />
        {making.error && <p role="alert" className="text-red-700">{making.error.message}</p>}
        {!making.isPending && orders.length === 0 && <p className="text-slate-700">{t('scanning.noOrdersMaking')}</p>}
        {orders.length > 0 && (
          <div className={field}>
            <label htmlFor="receive-order">{t('scanning.chooseShopOrder')}</label>
            <select
              id="receive-order"
              value={orderId}
              onChange={(e) => {
                setOrderId(e.target.value)
                setConfirming(false)
                const o = orders.find((x) => x.ID === e.target.value)
                if (o) setQty(String(remaining(o) || 1))
              }}
              className={control}
            >
              <option value="">{t('scanning.selectOne')}</option>
              {orders.map((o) => (
                <option key={o.ID} value={o.ID}>
                  {t('scanning.receiveOption', {
                    number: o.ShopOrderNumber,
                    produced: fmt(o.ProducedQuantity),
                    planned: fmt(o.PlannedQuantity),
                  })}
                </option>
              ))}
            </select>
            {tried && !order && (
              <span role="alert" className="text-sm font-normal text-red-700">
                {t('scanning.pickShopOrder')}
              </span>
            )}
          </div>
        )}
        <QuantityField
          id="receive-qty"
          label={t('scanning.quantity')}
          value={qty}
          onChange={(v) => {
            setQty(v)
            setConfirming(false)
          }}
          error={qtyError}
        />
        <TrackedNumbers key={write.round} id="receive-numbers" tracking={trackingOf(item)} mode="receive" item={item.ID} quantity={quantity} onReport={setNumbers} />
        {order && (
          <p className="text-sm text-slate-700">
            {into ? t('scanning.receiveInto', { location: locationLabel(into) }) : t('scanning.receiveDefault', { warehouse: order.WarehouseCode ?? '' })}
          </p>
        )}
        <NumbersNotReady report={numbers} />
        <SubmitBar>
          {confirming && order && quantity !== null && (
            <ConfirmOver
              message={t('scanning.receiveOver', { quantity: fmt(quantity), open: fmt(remaining(order)), number: order.ShopOrderNumber })}
              confirm={t('scanning.receiveAnyway')}
              onConfirm={() => {
                setConfirming(false)
                write.mutate({ shopOrder: order.ID, quantity, location: into?.ID ?? null, numbers: numbers.numbers, summary: t('offline.receive', { ...bookingWords(item, quantity), number: order.ShopOrderNumber }) })
              }}
              onBack={() => {
                setConfirming(false)
                document.getElementById('receive-qty')?.focus()
              }}
            />
          )}
          <button type="submit" disabled={write.isPending || orders.length === 0 || !!numbers.problem} className={bigButton}>
            {t('scanning.receiveSubmit')}
          </button>
          <WriteOutcome error={write.error} data={write.data} />
        </SubmitBar>
      </Panel>
      {order && byProducts.data && byProducts.data.length > 0 && <ByProductPanel key={order.ID} order={order} lines={byProducts.data} into={into} />}
      {order && isCatalogueRef(order.ID) && <p className="text-sm text-slate-600">{t('scanning.keptNoLabels')}</p>}
      {order && !isCatalogueRef(order.ID) && (
        <LabelPanel key={order.ID} source="shop_order" id={order.ID} title={t('labels.shopOrderTitle', { number: order.ShopOrderNumber })} />
      )}
    </>
  )
}
