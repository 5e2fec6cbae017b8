import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { liveListQuery, type LiveRow } from '../../api/db.ts'
import { countSessionKeys, useDivision } from '../../api/queries.ts'
import { LIVE_LIST_RETRY } from '../../api/queryClient.ts'
import { AsOf } from '../../components/AsOf.tsx'
import { Field, inputClass, labelClass } from '../../components/ui/Field.tsx'
import { Section } from '../../components/ui/Section.tsx'
import { t } from '../../i18n/index.ts'
import { userMessage } from '../../lib/errors.ts'
import type { FoundItem } from '../../api/items.ts'
import { ItemPicker } from '../../components/ItemPicker.tsx'
import type { WarehouseRef } from '../../lib/places.ts'
import { startCount } from './api.ts'
import { ChoiceOptions } from './ChoiceOptions.tsx'
import { Select } from '../../components/ui/Select.tsx'
import { kindsFor, startBody, startError, usesLocations, type ScopeKind, type StorageLocation } from './logic.ts'
import { Button } from '../../components/ui/Button.tsx'

const byCode = <T extends { Code: string | null }>(rows: readonly T[]) =>
  [...rows].sort((a, b) => (a.Code ?? '').localeCompare(b.Code ?? '', undefined, { numeric: true }))

const low = (id: string) => id.toLowerCase()

/** Starts a count: what it is of (a location, a warehouse, an item group or a list of items) and where. */
export function NewCount({ onStarted, onCancel }: { onStarted: (id: string) => void; onCancel: () => void }) {
  const queryClient = useQueryClient()
  const division = useDivision()
  const [kind, setKind] = useState<ScopeKind>('location')
  const [warehouseId, setWarehouseId] = useState('')
  const [locationId, setLocationId] = useState('')
  const [groupId, setGroupId] = useState('')
  const [items, setItems] = useState<FoundItem[]>([])
  const [description, setDescription] = useState('')
  const [tried, setTried] = useState(false)

  const warehouses = useQuery({ ...liveListQuery<WarehouseRef>('warehouses', division), ...LIVE_LIST_RETRY })
  const locations = useQuery({
    ...liveListQuery<StorageLocation>('storageLocations', division),
    enabled: kind === 'location',
    ...LIVE_LIST_RETRY,
  })
  const groups = useQuery({
    ...liveListQuery<LiveRow>('itemGroups', division),
    enabled: kind === 'itemGroup',
    ...LIVE_LIST_RETRY,
  })

  // a location count is of a warehouse that keeps storage locations: only those are offered for it
  const offered = byCode((warehouses.data?.rows ?? []).filter((w) => kind !== 'location' || usesLocations(w)))
  const warehouse = offered.find((w) => low(w.ID) === warehouseId)
  const here = byCode((locations.data?.rows ?? []).filter((l) => low(l.Warehouse ?? '') === warehouseId))
  const location = here.find((l) => low(l.ID) === locationId)
  const groupRows = byCode(groups.data?.rows ?? [])
  const itemGroup = groupRows.find((g) => low(g.ID) === groupId)
  const form = { kind, warehouse, location, itemGroup, items, description }
  const error = startError(form)

  const start = useMutation({
    mutationFn: () => startCount(startBody(form)),
    onSuccess: (count) => {
      queryClient.setQueryData(countSessionKeys.one(count.id), count)
      void queryClient.invalidateQueries({ queryKey: countSessionKeys.list(division) })
      onStarted(count.id)
    },
  })

  function chooseKind(next: ScopeKind) {
    setKind(next)
    setTried(false)
    // a warehouse without storage locations has no location to count
    if (next === 'location' && warehouse && !usesLocations(warehouse)) setWarehouseId('')
  }

  function addItem(i: FoundItem | null) {
    if (!i) return
    setItems((list) => (list.some((x) => low(x.ID) === low(i.ID)) ? list : [...list, i]))
  }

  const listError = warehouses.error ?? warehouses.failureReason ?? locations.error ?? locations.failureReason ?? groups.error ?? groups.failureReason
  return (
    <Section title={t('counts.newTitle')} titleId="new-count-title">
      <Field id="count-kind" label={t('counts.kind')}>
        {(control) => (
          <Select {...control} value={kind} onChange={(e) => chooseKind(e.target.value as ScopeKind)} name="kind">
            {kindsFor(warehouse).map((k) => (
              <option key={k} value={k}>
                {t(`counts.kind.${k}`)}
              </option>
            ))}
          </Select>
        )}
      </Field>
      <Field id="count-warehouse" label={t('counts.warehouse')}>
        {(control) => (
          <Select
            {...control}
            value={warehouseId}
            onChange={(e) => {
              setWarehouseId(e.target.value)
              setLocationId('')
            }}
            name="warehouse"
          >
            <ChoiceOptions rows={offered} pending={warehouses.isPending} prompt={t('counts.chooseWarehouse')} />
          </Select>
        )}
      </Field>
      {kind === 'location' && <p className="text-sm text-slate-600">{t('counts.locationWarehousesOnly')}</p>}
      {kind === 'location' && warehouse && (
        <Field id="count-new-location" label={t('counts.location')}>
          {(control) => (
            <Select {...control} value={locationId} onChange={(e) => setLocationId(e.target.value)} name="location">
              <ChoiceOptions rows={here} pending={locations.isPending} prompt={t('counts.chooseLocation')} />
            </Select>
          )}
        </Field>
      )}
      {kind === 'itemGroup' && (
        <Field id="count-group" label={t('counts.itemGroup')}>
          {(control) => (
            <Select {...control} value={groupId} onChange={(e) => setGroupId(e.target.value)} name="itemGroup">
              <ChoiceOptions rows={groupRows} pending={groups.isPending} prompt={t('counts.chooseGroup')} />
            </Select>
          )}
        </Field>
      )}
      {kind === 'items' && (
        <div className="flex flex-col gap-2">
          <ItemPicker item={null} onItem={addItem} locations={[]} onLocation={() => {}} placeholder={t('counts.itemsPlaceholder')} />
          {items.length > 0 && (
            <ul className="flex flex-col divide-y divide-slate-100 rounded border border-slate-200" aria-label={t('counts.itemsToCount')}>
              {items.map((i) => (
                <li key={i.ID} className="flex items-center justify-between gap-3 px-3 py-1">
                  <span className="flex min-w-0 flex-col">
                    <span className="font-mono text-sm font-semibold">{i.Code}</span>
                    <span className="truncate text-sm text-slate-700">{i.Description}</span>
                  </span>
                  <Button
                    type="button"
                    variant="secondary"
                    aria-label={t('counts.takeOff', { code: i.Code })}
                    onClick={() => setItems((list) => list.filter((x) => x !== i))}
                  >
                    {t('counts.takeOffShort')}
                  </Button>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <form
        className="flex flex-col gap-3"
        noValidate
        onSubmit={(e) => {
          e.preventDefault()
          setTried(true)
          if (!error && !start.isPending) start.mutate()
        }}
      >
        <label className={labelClass}>
          {t('counts.description')}
          <input
            className={inputClass}
            name="description"
            value={description}
            maxLength={200}
            onChange={(e) => setDescription(e.target.value)}
            placeholder={t('counts.descriptionPlaceholder')}
          />
        </label>
        <AsOf asOf={warehouses.data?.asOf} compact />
        {listError && (
          <p role="alert" className="text-sm text-red-700">
            {userMessage(listError)}
          </p>
        )}
        {tried && error && (
          <p role="alert" className="text-sm text-red-700">
            {t(error)}
          </p>
        )}
        {start.error && (
          <p role="alert" className="text-sm text-red-700">
            {userMessage(start.error)}
          </p>
        )}
        <div className="flex flex-wrap gap-2">
          <Button type="submit" variant="primary" disabled={start.isPending}>
            {start.isPending ? t('counts.starting') : t('counts.start')}
          </Button>
          <Button type="button" variant="secondary" onClick={onCancel}>
            {t('counts.cancel')}
          </Button>
        </div>
      </form>
    </Section>
  )
}
