import { useQuery } from '@tanstack/react-query'
import { scanKeys } from '../../api/queries.ts'
import { useState } from 'react'
import { byProductsOf, ordersMaking, receivePurchaseLine, receiveShopOrder, type ScannedItem, type ScanShopOrder } from '../../api/scan.ts'
import { fetchOpenLinesOfItem } from '../../api/receipts.ts'
import type { OpenLine } from '../../lib/receipts.ts'
import { formatDate } from '../../lib/dateTime.ts'
import { locale, t } from '../../i18n/index.ts'
import { exceeds, formatQuantity, parseQuantity, quantityForInput } from '../../lib/quantity.ts'
import type { LocationRef } from '../../lib/scan.ts'
import { LabelPanel } from './LabelPanel.tsx'
import { ByProductPanel } from './ByProductPanel.tsx'
import { AsOf } from '../../components/AsOf.tsx'
import {
  bookingWords,
  checkQuantity,
  ConfirmOver,
  control,
  field,
  locationLabel,
  Panel,
  SubmitBar,
  QuantityField,
  useWrite,
  WriteOutcome,
} from '../../components/scanFields.tsx'
import { isCatalogueRef, liveOrKept, type ScanCatalogue } from '../../offline/catalogue.ts'
import { NumbersNotReady, TrackedNumbers } from '../../components/tracking/TrackedNumbers.tsx'
import { trackingOf, UNTRACKED } from '../../lib/tracking.ts'
import { userMessage } from '../../lib/errors.ts'
import { Button } from '../../components/ui/Button.tsx'

const fmt = (n: number | null | undefined) => formatQuantity(n ?? 0, locale(), 3)

function remaining(o: ScanShopOrder): number {
  return Math.max(0, (o.PlannedQuantity ?? 0) - (o.ProducedQuantity ?? 0))
}

/** A purchase order line's value in the order select; a shop order's is its ID. */
const PO = 'po:'

/**
 * Receive the item into stock: finished products of a shop order, or goods of one of its open
 * purchase order lines (scanned as "PO 40080" or chosen here), at the location in context when
 * it is in the order's warehouse; and print a shop order's labels.
 */
export function ReceivePanel({
  item,
  location,
  scanned,
  scannedLine = null,
  catalogue = null,
}: {
  item: ScannedItem
  location: LocationRef | null
  scanned: ScanShopOrder | null
  /** The purchase order line a scanned purchase order named for this item. */
  scannedLine?: OpenLine | null
  /** The catalogue this device keeps: the orders while the server cannot be reached. */
  catalogue?: ScanCatalogue | null
}) {
  // out of reach of the server, or for an item shown from the catalogue (named by its code, which
  // the server's reads do not take), the orders this device's copy has
  const answer = useQuery({
    queryKey: scanKeys.ordersMaking(item.ID),
    queryFn: () =>
      liveOrKept(
        () => ordersMaking(item.ID),
        (c) => c.ordersMaking(item.Code),
        catalogue,
        { keptOnly: isCatalogueRef(item.ID) },
      ),
  })
  // purchase orders are read live from Exact Online: none out of reach
  const purchase = useQuery({
    queryKey: scanKeys.purchaseLines(item.ID),
    queryFn: () => fetchOpenLinesOfItem(item.ID),
    enabled: !isCatalogueRef(item.ID),
    retry: false,
  })
  const making = { ...answer, data: answer.data?.value }
  const orders = [...(scanned ? [scanned] : []), ...(making.data ?? []).filter((o) => o.ID !== scanned?.ID)]
  const lines = [...(scannedLine ? [scannedLine] : []), ...(purchase.data?.rows ?? []).filter((l) => l.id !== scannedLine?.id)]
  const [orderId, setOrderId] = useState(scanned?.ID ?? (scannedLine ? PO + scannedLine.id : ''))
  const order = orders.find((o) => o.ID === orderId) ?? null
  const line = orderId.startsWith(PO) ? (lines.find((l) => PO + l.id === orderId) ?? null) : null
  const [qty, setQty] = useState(scanned ? String(remaining(scanned) || 1) : scannedLine ? quantityForInput(scannedLine.open) : '1')
  const [tried, setTried] = useState(false)
  // more than the order still has open is a real over-production (or over-delivery), booked after a confirmation
  const [confirming, setConfirming] = useState(false)
  const byProducts = useQuery({
    queryKey: scanKeys.byProducts(orderId),
    queryFn: () => byProductsOf(orderId),
    enabled: !!order && !isCatalogueRef(orderId),
  })
  const write = useWrite(receive)
  const [numbers, setNumbers] = useState(UNTRACKED)
  const quantity = parseQuantity(qty)
  const qtyError = tried ? checkQuantity(quantity, item) : null
  const warehouse = order?.Warehouse ?? line?.warehouseId ?? null
  // a location of another warehouse would be refused: the order's own default is used then
  const into = location && warehouse && location.Warehouse?.toLowerCase() === warehouse.toLowerCase() ? location : null
  const open = order ? remaining(order) : line ? line.open : 0

  function receive(quantity: number) {
    if (line) {
      const summary = t('offline.goodsReceiptLine', { ...bookingWords(item, quantity), number: line.orderNumber })
      return receivePurchaseLine({ line, quantity, location: into?.ID ?? null, numbers: numbers.numbers, summary })
    }
    const o = order!
    return receiveShopOrder({
      shopOrder: o.ID,
      quantity,
      location: into?.ID ?? null,
      numbers: numbers.numbers,
      summary: t('offline.receive', { ...bookingWords(item, quantity), number: o.ShopOrderNumber }),
    })
  }

  const choose = (value: string) => {
    setOrderId(value)
    setConfirming(false)
    const o = orders.find((x) => x.ID === value)
    const l = lines.find((x) => PO + x.id === value)
    if (o) setQty(String(remaining(o) || 1))
    else if (l) setQty(quantityForInput(l.open))
  }
  const nothing = orders.length === 0 && lines.length === 0
  const loading = (making.isPending && !scanned) || (purchase.isPending && purchase.fetchStatus !== 'idle' && !scannedLine)

  return (
    <>
      <Panel
        title={t('scanning.receiveTitle')}
        onSubmit={() => {
          setTried(true)
          if ((!order && !line) || quantity === null || checkQuantity(quantity, item)) return
          if (exceeds(quantity, open)) setConfirming(true)
          else write.mutate(quantity)
        }}
      >
        {loading && <p role="status">{t('scanning.loading')}</p>}
        <AsOf asOf={answer.data?.asOf} compact title={(time) => t('scanning.keptTitle', { time })} />
        {making.error && (
          <p role="alert" className="text-red-700">
            {userMessage(making.error)}
          </p>
        )}
        {purchase.error && (
          <p role="alert" className="text-red-700">
            {t('scanning.purchaseLinesFailed', { message: userMessage(purchase.error) })}
          </p>
        )}
        {!loading && nothing && <p className="text-slate-700">{t('scanning.nothingToReceive')}</p>}
        {!nothing && (
          <div className={field}>
            <label htmlFor="receive-order">{t('scanning.receiveFor')}</label>
            <select id="receive-order" value={orderId} onChange={(e) => choose(e.target.value)} className={control}>
              <option value="">{t('scanning.selectOne')}</option>
              {lines.length > 0 && (
                <optgroup label={t('scanning.purchaseOrders')}>
                  {lines.map((l) => (
                    <option key={l.id} value={PO + l.id}>
                      {t('scanning.purchaseOption', {
                        number: l.orderNumber,
                        supplier: l.supplier,
                        open: fmt(l.open),
                        due: l.due === null ? '–' : formatDate(l.due),
                      })}
                    </option>
                  ))}
                </optgroup>
              )}
              {orders.length > 0 && (
                <optgroup label={t('scanning.shopOrders')}>
                  {orders.map((o) => (
                    <option key={o.ID} value={o.ID}>
                      {t('scanning.receiveOption', {
                        number: o.ShopOrderNumber,
                        produced: fmt(o.ProducedQuantity),
                        planned: fmt(o.PlannedQuantity),
                      })}
                    </option>
                  ))}
                </optgroup>
              )}
            </select>
            {tried && !order && !line && (
              <span role="alert" className="text-sm font-normal text-red-700">
                {t('scanning.pickOrder')}
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
        <TrackedNumbers
          key={write.round}
          id="receive-numbers"
          tracking={trackingOf(item)}
          mode="receive"
          item={item.ID}
          quantity={quantity}
          onReport={setNumbers}
        />
        {(order || line) && (
          <p className="text-sm text-slate-700">
            {into
              ? t('scanning.receiveInto', { location: locationLabel(into) })
              : t('scanning.receiveDefault', { warehouse: order?.WarehouseCode ?? line?.warehouse ?? '' })}
          </p>
        )}
        <NumbersNotReady report={numbers} />
        <SubmitBar>
          {confirming && (order || line) && quantity !== null && (
            <ConfirmOver
              message={
                line
                  ? t('scanning.receiveOverPurchase', { quantity: fmt(quantity), open: fmt(open), number: line.orderNumber })
                  : t('scanning.receiveOver', { quantity: fmt(quantity), open: fmt(open), number: order!.ShopOrderNumber })
              }
              confirm={t('scanning.receiveAnyway')}
              onConfirm={() => {
                setConfirming(false)
                write.mutate(quantity)
              }}
              onBack={() => {
                setConfirming(false)
                document.getElementById('receive-qty')?.focus()
              }}
            />
          )}
          <Button type="submit" disabled={write.isPending || nothing || !!numbers.problem} variant="primary" size="lg">
            {t('scanning.receiveSubmit')}
          </Button>
          <WriteOutcome error={write.error} data={write.data} />
        </SubmitBar>
      </Panel>
      {order && byProducts.data && byProducts.data.length > 0 && <ByProductPanel key={order.ID} order={order} lines={byProducts.data} into={into} />}
      {order && isCatalogueRef(order.ID) && <p className="text-sm text-slate-600">{t('scanning.keptNoLabels')}</p>}
      {order && !isCatalogueRef(order.ID) && (
        <LabelPanel key={order.ID} source="shop_order" id={order.ID} title={t('labels.shopOrderTitle', { number: order.ShopOrderNumber })} />
      )}
      {line && <p className="text-sm text-slate-600">{t('scanning.purchaseLabels')}</p>}
    </>
  )
}
