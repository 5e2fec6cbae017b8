import { useState } from 'react'
import { transferStock, type LocationStock, type ScannedItem, type WarehouseStock } from '../../api/scan.ts'
import { t } from '../../i18n/index.ts'
import { parseQuantity } from '../../lib/quantity.ts'
import type { LocationRef } from '../../lib/scan.ts'
import { trackingOf, UNTRACKED } from '../../lib/tracking.ts'
import { NumbersNotReady, TrackedNumbers } from '../../components/tracking/TrackedNumbers.tsx'
import {
  bookingWords,
  checkQuantity,
  LocationSelect,
  locationLabel,
  Panel,
  SubmitBar,
  QuantityField,
  useWrite,
  WriteOutcome,
} from '../../components/scanFields.tsx'
import { locationOf, sourcesOf } from '../../lib/places.ts'
import { Button } from '../../components/ui/Button.tsx'

/**
 * Move the item from one place to another (the location in context by default): a storage
 * location, or a whole warehouse that keeps none, so stock also goes warehouse to warehouse.
 */
export function TransferPanel({
  item,
  location,
  stock,
  warehouseStock,
  locations,
}: {
  item: ScannedItem
  location: LocationRef | null
  stock: readonly LocationStock[]
  /** Its stock per warehouse: where it is in a warehouse without storage locations. */
  warehouseStock?: readonly WarehouseStock[]
  /** The places (`placesOf`): storage locations, then warehouses without them. */
  locations: readonly LocationRef[]
}) {
  const withStock = new Set(stock.filter((s) => (s.Stock ?? 0) > 0 && s.StorageLocation).map((s) => s.StorageLocation as string))
  const sources = sourcesOf(locations, withStock, warehouseStock)
  const [from, setFrom] = useState(sources.find((l) => l.ID !== location?.ID)?.ID ?? sources[0]?.ID ?? '')
  const [to, setTo] = useState(location?.ID ?? '')
  const [qty, setQty] = useState('1')
  const [tried, setTried] = useState(false)
  const write = useWrite(transferStock)
  const [numbers, setNumbers] = useState(UNTRACKED)
  const quantity = parseQuantity(qty)
  const qtyError = tried ? checkQuantity(quantity, item) : null
  const fromLoc = locations.find((l) => l.ID === from)
  const toLoc = locations.find((l) => l.ID === to)
  const placeError = !tried ? null : !fromLoc || !toLoc ? t('scanning.pickBothLocations') : from === to ? t('scanning.sameLocation') : null

  return (
    <Panel
      title={t('scanning.transferTitle')}
      onSubmit={() => {
        setTried(true)
        if (!fromLoc?.Warehouse || !toLoc?.Warehouse || from === to || quantity === null || checkQuantity(quantity, item)) return
        write.mutate({
          item: item.ID,
          quantity,
          warehouseFrom: fromLoc.Warehouse,
          locationFrom: locationOf(fromLoc),
          warehouseTo: toLoc.Warehouse,
          locationTo: locationOf(toLoc),
          numbers: numbers.numbers,
          summary: t('offline.transfer', { ...bookingWords(item, quantity), from: locationLabel(fromLoc), to: locationLabel(toLoc) }),
        })
      }}
    >
      {sources.length === 0 && <p className="text-slate-700">{t('scanning.noStockToMove')}</p>}
      <LocationSelect
        id="transfer-from"
        label={t('scanning.fromLocation')}
        value={from}
        onChange={setFrom}
        locations={sources}
        empty={t('scanning.selectOne')}
      />
      <LocationSelect id="transfer-to" label={t('scanning.toLocation')} value={to} onChange={setTo} locations={locations} empty={t('scanning.selectOne')} />
      {placeError && (
        <p role="alert" className="text-sm text-red-700">
          {placeError}
        </p>
      )}
      <QuantityField id="transfer-qty" label={t('scanning.quantity')} value={qty} onChange={setQty} error={qtyError} />
      <TrackedNumbers
        key={write.round}
        id="transfer-numbers"
        tracking={trackingOf(item)}
        mode="take"
        item={item.ID}
        warehouse={fromLoc?.Warehouse ?? null}
        location={fromLoc ? locationOf(fromLoc) : null}
        quantity={quantity}
        onReport={setNumbers}
      />
      <NumbersNotReady report={numbers} />
      <SubmitBar>
        <Button type="submit" disabled={write.isPending || sources.length === 0 || !!numbers.problem} variant="primary" size="lg">
          {t('scanning.transferSubmit')}
        </Button>
        <WriteOutcome error={write.error} data={write.data} />
      </SubmitBar>
    </Panel>
  )
}
