import { useState } from 'react'
import { countStock, type ScannedItem } from './api.ts'
import { t } from '../../i18n/index.ts'
import { parseQuantity, type LocationRef } from '../../lib/scan.ts'
import { bigButton, bookingWords, LocationSelect, locationLabel, Panel, SubmitBar, QuantityField, useWrite, WriteOutcome } from './fields.tsx'
import { RecentCounts } from './RecentCounts.tsx'
import { trackingOf, UNTRACKED } from '../tracking/logic.ts'
import { NumbersNotReady, TrackedNumbers } from '../tracking/TrackedNumbers.tsx'
import { isCatalogueRef } from '../../offline/catalogue.ts'
import { locationOf } from './places.ts'

/**
 * Count the item in one place: a storage location, or a whole warehouse that keeps none (counted
 * per warehouse). The counted quantity becomes its stock there.
 */
export function CountPanel({
  item,
  location,
  itemLocations,
  locations,
}: {
  item: ScannedItem
  location: LocationRef | null
  itemLocations: readonly LocationRef[]
  locations: readonly LocationRef[]
}) {
  const [where, setWhere] = useState(location?.ID ?? itemLocations[0]?.ID ?? '')
  const [qty, setQty] = useState('')
  const [tried, setTried] = useState(false)
  const write = useWrite(countStock)
  const [numbers, setNumbers] = useState(UNTRACKED)
  const quantity = parseQuantity(qty)
  const qtyError = !tried ? null : quantity === null ? t('scanning.badQuantity') : quantity < 0 ? t('scanning.quantityNotNegative') : null
  const place = locations.find((l) => l.ID === where)

  return (
    <Panel
      title={t('scanning.countTitle')}
      onSubmit={() => {
        setTried(true)
        if (!place?.Warehouse || quantity === null || quantity < 0) return
        write.mutate({
          item: item.ID,
          warehouse: place.Warehouse,
          location: locationOf(place),
          quantity,
          numbers: numbers.numbers,
          summary: t('offline.count', { ...bookingWords(item, quantity), place: locationLabel(place) }),
        })
      }}
    >
      <LocationSelect id="count-where" label={t('scanning.countLocation')} value={where} onChange={setWhere} locations={locations} empty={t('scanning.selectOne')} />
      {tried && !place && (
        <p role="alert" className="text-sm text-red-700">
          {t('scanning.pickLocation')}
        </p>
      )}
      <QuantityField id="count-qty" label={t('scanning.counted')} value={qty} onChange={setQty} error={qtyError} />
      <TrackedNumbers
        key={write.round}
        id="count-numbers"
        tracking={trackingOf(item)}
        mode="take"
        item={item.ID}
        warehouse={place?.Warehouse ?? null}
        location={place?.ID ?? null}
        quantity={quantity}
        onReport={setNumbers}
      />
      {/* read live by the item's GUID: not for an item shown from the catalogue */}
      {!isCatalogueRef(item.ID) && <RecentCounts item={item.ID} />}
      <NumbersNotReady report={numbers} />
      <SubmitBar>
        <button type="submit" disabled={write.isPending || !!numbers.problem} className={bigButton}>
          {t('scanning.countSubmit')}
        </button>
        <WriteOutcome error={write.error} data={write.data} />
      </SubmitBar>
    </Panel>
  )
}
