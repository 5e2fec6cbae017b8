import { useQuery, useQueryClient } from '@tanstack/react-query'
import { transferKeys, useDivision } from '../../api/queries.ts'
import { useCallback, useState } from 'react'
import { liveListQuery } from '../../api/db.ts'
import type { FoundItem } from '../../api/items.ts'
import { createTransfer, fetchFromPlaces } from './api.ts'
import type { WriteOutcome } from '../../api/writes.ts'
import { inputClass, labelClass } from '../../components/ui/Field.tsx'
import { Section } from '../../components/ui/Section.tsx'
import { InfoTip } from '../../components/Tooltip.tsx'
import { AsOf } from '../../components/AsOf.tsx'
import { WriteStatus } from '../../components/WriteStatus.tsx'
import { locale, t } from '../../i18n/index.ts'
import { formatQuantity, fractionsAllowed, parseQuantity } from '../../lib/quantity.ts'
import { placeName, transferBody, transferError, unlocatedWarehouses, warehousePlace, type Place, type WarehouseRow } from './logic.ts'
import { ItemPicker } from '../../components/ItemPicker.tsx'
import type { LocationRef } from '../../lib/scan.ts'
import { LIVE_LIST_RETRY } from '../../api/queryClient.ts'
import { trackingOf, UNTRACKED } from '../../lib/tracking.ts'
import { NumbersNotReady, TrackedNumbers } from '../../components/tracking/TrackedNumbers.tsx'
import { userMessage } from '../../lib/errors.ts'
import { Button } from '../../components/ui/Button.tsx'
import { Select } from '../../components/ui/Select.tsx'

interface StorageLocation {
  ID: string
  Code: string
  Description: string
  Warehouse: string
  WarehouseCode: string
}

/** A select's value for a place: the storage location's ID, or the warehouse's for a whole one. */
const placeKey = (p: Place) => p.location || `warehouse:${p.warehouse}`

interface Sent {
  key: number
  what: string
  outcome: WriteOutcome
}

/** Scan an item, choose from (with stock) and to, the quantity, and send the transfer. */
export function TransferForm() {
  const queryClient = useQueryClient()
  const division = useDivision()
  const [item, setItem] = useState<FoundItem | null>(null)
  const [fromId, setFromId] = useState('')
  const [toId, setToId] = useState('')
  const [quantity, setQuantity] = useState('')
  const [tried, setTried] = useState(false)
  const [sending, setSending] = useState(false)
  const [sent, setSent] = useState<Sent[]>([])
  const [adjusted, setAdjusted] = useState(false)
  const [sendError, setSendError] = useState<string | null>(null)
  const [numbers, setNumbers] = useState(UNTRACKED)
  // a location scanned before the item's places are known: taken from there once they are
  const [scannedFrom, setScannedFrom] = useState<string | null>(null)
  const [scanNote, setScanNote] = useState<string | null>(null)

  // which warehouses keep no storage locations: moved to and from as a whole
  const warehouses = useQuery({ ...liveListQuery<WarehouseRow>('warehouses', division), ...LIVE_LIST_RETRY })
  const whole = unlocatedWarehouses(warehouses.data?.rows).map(warehousePlace)
  const places = useQuery({
    queryKey: transferKeys.from(item?.ID),
    queryFn: () => fetchFromPlaces(item!.ID, warehouses.data?.rows),
    // the warehouses first (answered or failed), so the whole ones are among the sources
    enabled: !!item && !warehouses.isPending,
  })
  const locations = useQuery({
    ...liveListQuery<StorageLocation>('storageLocations', division),
    ...LIVE_LIST_RETRY,
  })

  const chosenFrom = fromId || (scannedFrom && places.data?.some((p) => p.location === scannedFrom) ? scannedFrom : '')
  const from = places.data?.find((p) => placeKey(p) === chosenFrom)
  const toRow = locations.data?.rows.find((l) => l.ID.toLowerCase() === toId)
  const to: Place | undefined =
    whole.find((p) => placeKey(p) === toId) ??
    (toRow && {
      location: toRow.ID.toLowerCase(),
      locationCode: toRow.Code,
      warehouse: toRow.Warehouse.toLowerCase(),
      warehouseCode: toRow.WarehouseCode,
    })
  // the numbers count once there is a place to take them from
  const numbersReport = from ? numbers : UNTRACKED
  const error = transferError(quantity, from, to, fractionsAllowed(item?.IsFractionAllowedItem))

  const onDelivered = useCallback(() => {
    setAdjusted(true)
    void queryClient.invalidateQueries({ queryKey: transferKeys.all })
    // the server re-syncs stock after delivery; read the locations again once that had time
    setTimeout(() => void queryClient.invalidateQueries({ queryKey: transferKeys.fromAll }), 5_000)
  }, [queryClient])

  function chooseItem(i: FoundItem | null) {
    setItem(i)
    setFromId('')
    setScanNote(null)
    setQuantity('')
    setTried(false)
  }

  /** A scanned storage location: where the item is taken from when it is there and none is chosen, else where it goes. */
  function scanLocation(l: LocationRef) {
    const id = l.ID.toLowerCase()
    const name = [l.WarehouseCode, l.Code].filter(Boolean).join(' ')
    const holds = places.data?.some((p) => p.location === id)
    if (!from && (holds || !item || !places.data)) {
      setFromId(holds ? id : '')
      setScannedFrom(id)
      setScanNote(t('transfers.locationScanned', { location: name, role: t('transfers.roleFrom') }))
    } else {
      setToId(id)
      setScanNote(t('transfers.locationScanned', { location: name, role: t('transfers.roleTo') }))
    }
  }

  async function send() {
    setTried(true)
    if (error || numbersReport.problem || !item || !from || !to) return
    const qty = parseQuantity(quantity) ?? 0
    setSending(true)
    setSendError(null)
    try {
      const what = t('transfers.sentWhat', { quantity: formatQuantity(qty, locale()), code: item.Code, from: placeName(from), to: placeName(to) })
      const outcome = await createTransfer(transferBody(item.ID, from, to, qty, t('transfers.description', { code: item.Code }), numbers.numbers), what)
      setSent((s) => [{ key: Date.now(), what, outcome }, ...s])
      setQuantity('')
      setTried(false)
    } catch (e) {
      setSendError(userMessage(e))
    } finally {
      setSending(false)
    }
  }

  const byWarehouse = new Map<string, StorageLocation[]>()
  const wholeIds = new Set(whole.map((p) => p.warehouse))
  for (const l of locations.data?.rows ?? []) {
    // a location said to be in a warehouse without them would be refused by Exact
    if (wholeIds.has(l.Warehouse.toLowerCase())) continue
    byWarehouse.set(l.WarehouseCode, [...(byWarehouse.get(l.WarehouseCode) ?? []), l])
  }

  return (
    <Section title={t('transfers.newTitle')} titleId="transfer-title">
      <ItemPicker item={item} onItem={chooseItem} locations={locations.data?.rows ?? []} onLocation={scanLocation} />
      {scanNote && (
        <p role="status" className="text-sm text-emerald-900" data-testid="transfer-scan-note">
          {scanNote}
        </p>
      )}
      {item && scannedFrom && places.isSuccess && !from && !fromId && (
        <p className="text-sm text-amber-800">
          {t('transfers.noStockAtScanned', { location: locations.data?.rows.find((l) => l.ID.toLowerCase() === scannedFrom)?.Code ?? '' })}
        </p>
      )}
      {item && (
        <form
          className="flex flex-col gap-3"
          noValidate
          onSubmit={(e) => {
            e.preventDefault()
            void send()
          }}
        >
          <label className={labelClass}>
            {t('transfers.from')}
            <Select value={chosenFrom} onChange={(e) => setFromId(e.target.value)} name="from">
              <option value="">{places.isPending ? t('transfers.loadingStock') : t('transfers.chooseFrom')}</option>
              {(places.data ?? []).map((p) => (
                <option key={placeKey(p)} value={placeKey(p)}>
                  {p.location
                    ? t('transfers.fromOption', { warehouse: p.warehouseCode, location: p.locationCode, stock: formatQuantity(p.stock, locale()) })
                    : t('transfers.fromWarehouseOption', { warehouse: p.warehouseCode, stock: formatQuantity(p.stock, locale()) })}
                </option>
              ))}
            </Select>
          </label>
          {places.isSuccess && places.data.length === 0 && <p className="text-sm text-amber-800">{t('transfers.noStock')}</p>}
          <label className={labelClass}>
            {t('transfers.to')}
            <Select value={toId} onChange={(e) => setToId(e.target.value)} name="to">
              <option value="">{locations.isPending ? t('transfers.loadingLocations') : t('transfers.chooseTo')}</option>
              {[...byWarehouse].map(([wh, list]) => (
                <optgroup key={wh} label={t('transfers.warehouse', { code: wh })}>
                  {list.map((l) => (
                    <option key={l.ID} value={l.ID.toLowerCase()}>
                      {l.Code} {l.Description}
                    </option>
                  ))}
                </optgroup>
              ))}
              {whole.length > 0 && (
                <optgroup label={t('transfers.wholeWarehouses')}>
                  {whole.map((p) => (
                    <option key={placeKey(p)} value={placeKey(p)}>
                      {t('transfers.warehouse', { code: p.warehouseCode })}
                    </option>
                  ))}
                </optgroup>
              )}
            </Select>
          </label>
          <AsOf asOf={locations.data?.asOf} compact />
          <label className={labelClass}>
            {t('transfers.quantity')}
            <input
              className={inputClass}
              inputMode="decimal"
              name="quantity"
              value={quantity}
              onChange={(e) => setQuantity(e.target.value)}
              aria-invalid={tried && !!error}
            />
          </label>
          {tried && error && (
            <p role="alert" className="text-sm text-red-700">
              {t(error, { stock: from ? formatQuantity(from.stock, locale()) : '', unit: item?.Unit?.trim() ?? '' })}
            </p>
          )}
          {(locations.error ?? locations.failureReason) && (
            <p role="alert" className="text-sm text-red-700">
              {userMessage(locations.error ?? locations.failureReason)}
            </p>
          )}
          {from && (
            <TrackedNumbers
              key={sent.length}
              id="transfer-numbers"
              tracking={trackingOf(item)}
              mode="take"
              item={item.ID}
              warehouse={from.warehouse}
              location={from.location || null}
              quantity={parseQuantity(quantity)}
              onReport={setNumbers}
            />
          )}
          <NumbersNotReady report={numbersReport} />
          <Button type="submit" variant="primary" disabled={sending || !!numbersReport.problem}>
            {sending ? t('transfers.sending') : t('transfers.send')}
          </Button>
        </form>
      )}
      {sendError && (
        <p role="alert" className="text-sm text-red-700">
          {sendError}
        </p>
      )}
      {sent.map((s) => (
        <WriteStatus key={s.key} outcome={s.outcome} what={s.what} onDelivered={onDelivered} />
      ))}
      {adjusted && (
        <p className="flex items-center gap-2 rounded bg-emerald-50 p-2 text-sm text-emerald-900" data-testid="stock-adjusted">
          {t('transfers.stockAdjusted')}
          <InfoTip label={t('transfers.stockAdjustedHelp')} text={t('tooltip.transferStockAdjusted')} />
        </p>
      )}
    </Section>
  )
}
