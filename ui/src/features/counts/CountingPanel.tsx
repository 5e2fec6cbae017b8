import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { isApiError } from '../../api/client.ts'
import { liveListQuery } from '../../api/db.ts'
import { countSessionKeys, useDivision } from '../../api/queries.ts'
import { LIVE_LIST_RETRY } from '../../api/queryClient.ts'
import { AsOf } from '../../components/AsOf.tsx'
import { Field } from '../../components/ui/Field.tsx'
import { Section } from '../../components/ui/Section.tsx'
import { t } from '../../i18n/index.ts'
import { userMessage } from '../../lib/errors.ts'
import { formatQty, fractionsAllowed, parseQuantity } from '../../lib/quantity.ts'
import type { LocationRef } from '../../lib/scan.ts'
import { QuantityField } from '../../components/scanFields.tsx'
import type { FoundItem } from '../../api/items.ts'
import { ItemPicker } from '../../components/ItemPicker.tsx'
import { addLine, countQuery } from './api.ts'
import { ChoiceOptions } from './ChoiceOptions.tsx'
import { Select } from '../../components/ui/Select.tsx'
import {
  choosesLocation,
  isConflict,
  lineAt,
  lineLocation,
  quantityError,
  type CountLine,
  type CountSummary,
  type LineBody,
  type StorageLocation,
} from './logic.ts'
import { Button } from '../../components/ui/Button.tsx'
import { NumbersNotReady, TrackedNumbers } from '../../components/tracking/TrackedNumbers.tsx'
import { trackingOf, UNTRACKED } from '../../lib/tracking.ts'

export const SCAN_ID = 'count-scan'
const QTY_ID = 'count-line-qty'

/** A line as sent, with what its location is called. */
interface Sent {
  body: LineBody
  item: FoundItem
  locationCode: string | null
}

/**
 * A line the server asked about: the line counted there before (when this screen has it) and the
 * server's question, in the user's language ("BOLT-M8 at A-01 was counted as 98 by Jan: which count stands?").
 */
interface Conflict extends Sent {
  earlier: CountLine | undefined
  question: string
}

/** What the last action did, said in a status (done) or an alert (refused). */
export interface Note {
  ok: boolean
  text: string
}

const low = (v: string | null | undefined) => (v ?? '').toLowerCase()

/** A line in the count as the server answered it: in place of the one it replaces, else newest first. */
export function withLine(count: CountSummary, line: CountLine): CountSummary {
  const lines = count.lines ?? []
  const known = lines.some((l) => l.id === line.id)
  const next = known ? lines.map((l) => (l.id === line.id ? line : l)) : [...lines, line]
  return { ...count, lines: next, lineCount: next.length }
}

/**
 * Counting on a handheld: scan (or type) an item, in a warehouse with storage locations choose
 * or scan the location, the quantity, Add. An item counted at that place before with another
 * quantity is asked about: the earlier count stands, or this one replaces it.
 */
export function CountingPanel({ count, onNote, note }: { count: CountSummary; note: Note | null; onNote: (n: Note | null) => void }) {
  const queryClient = useQueryClient()
  const division = useDivision()
  const scope = count.scope
  const [item, setItem] = useState<FoundItem | null>(null)
  const [location, setLocation] = useState('')
  const [qty, setQty] = useState('')
  const [tried, setTried] = useState(false)
  const [conflict, setConflict] = useState<Conflict | null>(null)
  // a serial or batch item's numbers, as found at the place (one serial per unit, batches adding up)
  const [numbers, setNumbers] = useState(UNTRACKED)
  const [round, setRound] = useState(0)

  const locations = useQuery({
    ...liveListQuery<StorageLocation>('storageLocations', division),
    enabled: scope.usesLocations,
    ...LIVE_LIST_RETRY,
  })
  const all = locations.data?.rows ?? []
  const here = all.filter((l) => low(l.Warehouse) === low(scope.warehouse)).sort((a, b) => a.Code.localeCompare(b.Code, undefined, { numeric: true }))
  const chosen = here.find((l) => low(l.ID) === location)

  // the quantity is what comes next once the item is known
  useEffect(() => {
    if (item) document.getElementById(QTY_ID)?.focus()
  }, [item])

  const fractions = fractionsAllowed(item?.IsFractionAllowedItem)
  const qtyError = tried ? quantityError(qty, fractions) : null
  const needsLocation = choosesLocation(scope) && !chosen

  const add = useMutation({
    mutationFn: (c: Sent) => addLine(count.id, c.body),
    onSuccess: (line, sent) => {
      const before = lineAt(count.lines, line.item, line.location)
      const words = { quantity: formatQty(line.quantity), code: line.itemCode, at: line.locationCode ? t('counts.at', { location: line.locationCode }) : '' }
      const key = sent.body.replace ? 'counts.replaced' : before && before.quantity === line.quantity ? 'counts.same' : 'counts.added'
      onNote({ ok: true, text: t(key, words) })
      queryClient.setQueryData<CountSummary>(countSessionKeys.one(count.id), (c) => (c ? withLine(c, line) : c))
      void queryClient.invalidateQueries({ queryKey: countSessionKeys.one(count.id) })
      setConflict(null)
      setItem(null)
      setQty('')
      setTried(false)
      setRound((r) => r + 1)
      document.getElementById(SCAN_ID)?.focus()
    },
    onError: async (e, sent) => {
      if (isConflict(e)) {
        onNote(null)
        // another counter's line may not be here yet: the count is read again for its quantity and who counted it
        let lines = count.lines
        try {
          lines = (await queryClient.fetchQuery({ ...countQuery(count.id), staleTime: 0 })).lines
        } catch {
          // the lines this screen has: the question is the server's then
        }
        const earlier = lineAt(lines, sent.body.item, scope.kind === 'location' ? (scope.location ?? null) : (sent.body.location ?? null))
        // the question is the server's, in the user's language (it knows who counted what)
        setConflict({ ...sent, earlier, question: userMessage(e) })
      } else {
        onNote({ ok: false, text: userMessage(e) })
        // sent meanwhile from another screen: the count is read again, and says where it stands
        if (isApiError(e, 409)) void queryClient.invalidateQueries({ queryKey: countSessionKeys.one(count.id) })
      }
    },
  })

  function submit() {
    setTried(true)
    if (!item || quantityError(qty, fractions) || needsLocation || numbers.problem || add.isPending) return
    const at = lineLocation(scope, chosen?.ID ?? '')
    const locationCode = scope.kind === 'location' ? (scope.locationCode ?? null) : (chosen?.Code ?? null)
    const body: LineBody = { item: item.ID.toLowerCase(), quantity: parseQuantity(qty)!, ...numbers.numbers }
    if (scope.kind !== 'location' && at) {
      body.location = at
      body.locationCode = locationCode
    }
    setConflict(null)
    add.mutate({ body, item, locationCode })
  }

  /** A scanned location code: where the next lines are counted, when this count has such places. */
  function scanLocation(l: LocationRef) {
    const code = l.Code
    if (scope.kind === 'location') {
      if (low(l.ID) === low(scope.location)) onNote({ ok: true, text: t('counts.countingAt', { location: code }) })
      else onNote({ ok: false, text: t('counts.otherLocation', { scanned: code, location: scope.locationCode ?? '' }) })
    } else if (low(l.Warehouse) !== low(scope.warehouse)) {
      onNote({ ok: false, text: t('counts.otherWarehouse', { scanned: code, warehouse: l.WarehouseCode ?? '', ours: scope.warehouseCode }) })
    } else {
      setLocation(low(l.ID))
      setConflict(null)
      onNote({ ok: true, text: t('counts.countingAt', { location: code }) })
    }
  }

  const earlier = conflict?.earlier
  const listError = locations.error ?? locations.failureReason
  return (
    <Section title={t('counts.countingTitle')} titleId="counting-title">
      {scope.kind === 'location' && <p className="text-slate-700">{t('counts.allAt', { location: scope.locationCode ?? '' })}</p>}
      {choosesLocation(scope) && (
        <Field id="count-location" label={t('counts.location')}>
          {(control) => (
            <Select
              {...control}
              value={chosen ? location : ''}
              onChange={(e) => {
                setLocation(e.target.value)
                setConflict(null)
              }}
              aria-invalid={tried && needsLocation}
            >
              <ChoiceOptions rows={here} pending={locations.isPending} prompt={t('counts.chooseLocation')} />
            </Select>
          )}
        </Field>
      )}
      {scope.usesLocations && <AsOf asOf={locations.data?.asOf} compact />}
      {listError && (
        <p role="alert" className="text-sm text-red-700">
          {userMessage(listError)}
        </p>
      )}
      <ItemPicker
        id={SCAN_ID}
        item={item}
        onItem={(i) => {
          setItem(i)
          setConflict(null)
          onNote(null)
        }}
        locations={scope.usesLocations ? all : []}
        onLocation={scanLocation}
        placeholder={choosesLocation(scope) ? t('counts.scanPlaceholderLocations') : t('counts.scanPlaceholder')}
      />
      {item && (
        <form
          className="flex flex-col gap-3"
          noValidate
          onSubmit={(e) => {
            e.preventDefault()
            submit()
          }}
        >
          <QuantityField
            id={QTY_ID}
            label={t('counts.quantity')}
            value={qty}
            onChange={(v) => {
              setQty(v)
              setConflict(null)
            }}
            error={qtyError ? t(qtyError, { unit: item.Unit?.trim() ?? '' }) : null}
          />
          {tried && needsLocation && (
            <p role="alert" className="text-sm text-red-700">
              {t('counts.error.chooseLocation')}
            </p>
          )}
          <TrackedNumbers
            key={`${item.ID}-${round}`}
            id="count-line-numbers"
            tracking={trackingOf(item)}
            mode="take"
            item={item.ID.toLowerCase()}
            warehouse={scope.warehouse}
            location={(scope.kind === 'location' ? scope.location : chosen?.ID) ?? null}
            quantity={parseQuantity(qty)}
            onReport={setNumbers}
          />
          <NumbersNotReady report={numbers} />
          {/* while the question is open it is answered first (editing the quantity sets it aside) */}
          <Button type="submit" variant="primary" disabled={add.isPending || !!conflict || !!numbers.problem}>
            {add.isPending ? t('counts.adding') : t('counts.add')}
          </Button>
        </form>
      )}
      {conflict && (
        <div role="alert" className="flex flex-col gap-3 rounded border border-amber-300 bg-amber-50 p-3 text-amber-950" data-testid="count-conflict">
          <p>{conflict.question}</p>
          <div className="flex flex-wrap gap-2">
            <Button
              type="button"
              variant="secondary"
              onClick={() => {
                setConflict(null)
                setItem(null)
                setQty('')
                setTried(false)
                onNote({
                  ok: true,
                  text: earlier
                    ? t('counts.kept', { quantity: formatQty(earlier.quantity), code: conflict.item.Code })
                    : t('counts.keptEarlier', { code: conflict.item.Code }),
                })
                document.getElementById(SCAN_ID)?.focus()
              }}
            >
              {earlier ? t('counts.keep', { quantity: formatQty(earlier.quantity) }) : t('counts.keepEarlier')}
            </Button>
            <Button
              type="button"
              variant="primary"
              disabled={add.isPending}
              onClick={() => add.mutate({ body: { ...conflict.body, replace: true }, item: conflict.item, locationCode: conflict.locationCode })}
            >
              {t('counts.use', { quantity: formatQty(conflict.body.quantity) })}
            </Button>
          </div>
        </div>
      )}
      {note &&
        (note.ok ? (
          <p role="status" className="text-sm text-emerald-900" data-testid="count-note">
            {note.text}
          </p>
        ) : (
          <p role="alert" className="text-sm text-red-700" data-testid="count-note">
            {note.text}
          </p>
        ))}
    </Section>
  )
}
