import { useState } from 'react'
import { countStock, type LocationStock, type ScannedItem, type WarehouseStock } from '../../api/scan.ts'
import { t } from '../../i18n/index.ts'
import { formatQty } from '../../lib/quantity.ts'
import type { LocationRef } from '../../lib/scan.ts'
import { parseQuantity } from '../../lib/quantity.ts'
import {
  bookingWords,
  ConfirmOver,
  LocationSelect,
  locationLabel,
  Panel,
  SubmitBar,
  QuantityField,
  useWrite,
  WriteOutcome,
} from '../../components/scanFields.tsx'
import { RecentCounts } from './RecentCounts.tsx'
import { trackingOf, UNTRACKED } from '../../lib/tracking.ts'
import { NumbersNotReady, TrackedNumbers } from '../../components/tracking/TrackedNumbers.tsx'
import { isCatalogueRef } from '../../offline/catalogue.ts'
import { locationOf } from '../../lib/places.ts'
import { stockToIssueFrom } from '../../lib/itemStock.ts'
import { countDifference } from './countDifference.ts'
import { Button } from '../../components/ui/Button.tsx'

/**
 * Count the item in one place: a storage location, or a whole warehouse that keeps none (counted
 * per warehouse). The counted quantity becomes its stock there. The form shows what the local
 * copy expects there and the difference; a large one is asked about before it is saved.
 */
export function CountPanel({
  item,
  location,
  itemLocations,
  locations,
  stock,
  warehouseStock,
}: {
  item: ScannedItem
  location: LocationRef | null
  itemLocations: readonly LocationRef[]
  locations: readonly LocationRef[]
  /** The item's stock per storage location and per warehouse: what the count is compared with. */
  stock?: readonly LocationStock[]
  warehouseStock?: readonly WarehouseStock[]
}) {
  const [where, setWhere] = useState(location?.ID ?? itemLocations[0]?.ID ?? '')
  const [qty, setQty] = useState('')
  const [tried, setTried] = useState(false)
  const write = useWrite(countStock)
  const [numbers, setNumbers] = useState(UNTRACKED)
  const quantity = parseQuantity(qty)
  const qtyError = !tried ? null : quantity === null ? t('scanning.badQuantity') : quantity < 0 ? t('scanning.quantityNotNegative') : null
  const place = locations.find((l) => l.ID === where)
  const [confirming, setConfirming] = useState(false)
  const expected = place ? stockToIssueFrom(locationOf(place) ?? '', place.Warehouse, stock, warehouseStock) : null
  const diff = countDifference(expected, quantity !== null && quantity >= 0 ? quantity : null)
  const edit = (set: (v: string) => void) => (v: string) => {
    set(v)
    setConfirming(false)
  }
  const save = () => {
    if (!place?.Warehouse || quantity === null) return
    setConfirming(false)
    write.mutate({
      item: item.ID,
      warehouse: place.Warehouse,
      location: locationOf(place),
      quantity,
      numbers: numbers.numbers,
      summary: t('offline.count', { ...bookingWords(item, quantity), place: locationLabel(place) }),
    })
  }

  return (
    <Panel
      title={t('scanning.countTitle')}
      onSubmit={() => {
        setTried(true)
        if (!place?.Warehouse || quantity === null || quantity < 0) return
        if (diff?.large) setConfirming(true)
        else save()
      }}
    >
      <LocationSelect
        id="count-where"
        label={t('scanning.countLocation')}
        value={where}
        onChange={edit(setWhere)}
        locations={locations}
        empty={t('scanning.selectOne')}
      />
      {tried && !place && (
        <p role="alert" className="text-sm text-red-700">
          {t('scanning.pickLocation')}
        </p>
      )}
      <QuantityField id="count-qty" label={t('scanning.counted')} value={qty} onChange={edit(setQty)} error={qtyError} />
      {diff && (
        <p data-testid="count-difference" className={`text-base ${diff.large ? 'font-semibold text-amber-800' : 'text-slate-700'}`}>
          {t('scanning.countDifference', {
            expected: formatQty(diff.expected),
            counted: formatQty(diff.counted),
            difference: formatQty(diff.difference, true),
          })}
        </p>
      )}
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
        {confirming && diff && place && (
          <ConfirmOver
            message={t('scanning.countLarge', {
              counted: formatQty(diff.counted),
              expected: formatQty(diff.expected),
              place: locationLabel(place),
              difference: formatQty(diff.difference, true),
            })}
            confirm={t('scanning.countAnyway')}
            onConfirm={save}
            onBack={() => {
              setConfirming(false)
              document.getElementById('count-qty')?.focus()
            }}
          />
        )}
        <Button type="submit" disabled={write.isPending || !!numbers.problem} variant="primary" size="lg">
          {t('scanning.countSubmit')}
        </Button>
        <WriteOutcome error={write.error} data={write.data} />
      </SubmitBar>
    </Panel>
  )
}
