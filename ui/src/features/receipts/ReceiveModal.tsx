import { useQuery, useQueryClient } from '@tanstack/react-query'
import { receiptKeys, useDivision } from '../../api/queries.ts'
import { useEffect, useMemo, useRef, useState } from 'react'
import { liveListQuery } from '../../api/db.ts'
import { againWhileStored, LIVE_STALE_MS } from '../../api/exactDirect.ts'
import { oldestAsOf } from '../../api/live.ts'
import { createGoodsReceipt, fetchOpenLines } from '../../api/receipts.ts'
import type { WriteOutcome } from '../../api/writes.ts'
import { inputClass, labelClass } from '../../components/ui/Field.tsx'
import { AsOf } from '../../components/AsOf.tsx'
import { InfoTip } from '../../components/Tooltip.tsx'
import { Dialog } from '../../components/ui/Dialog.tsx'
import { WriteStatus } from '../../components/WriteStatus.tsx'
import { locale, t } from '../../i18n/index.ts'
import { formatQuantity, parseQuantity } from '../../lib/quantity.ts'
import { matchesLine, overDelivered, receiptBodies, receiveError, type OpenLine } from '../../lib/receipts.ts'
import { LIVE_LIST_RETRY } from '../../api/queryClient.ts'
import { UNTRACKED, type NumbersReport } from '../../lib/tracking.ts'
import { NumbersNotReady, TrackedNumbers } from '../../components/tracking/TrackedNumbers.tsx'
import { unlocatedIds, type WarehouseRef } from '../../lib/places.ts'
import { userMessage } from '../../lib/errors.ts'
import { Button } from '../../components/ui/Button.tsx'
import { Select } from '../../components/ui/Select.tsx'

interface StorageLocation {
  ID: string
  Code: string
  Description: string
  Warehouse: string
}

interface Draft {
  quantity: string
  location: string
  /** A tracked item's numbers for the line, and what they still miss. */
  numbers: NumbersReport
}

/** Lines shown at once; the search narrows the rest. */
const SHOWN = 60

function LineRow({
  line,
  draft,
  locations,
  unlocated,
  onToggle,
  onChange,
}: {
  line: OpenLine
  draft: Draft | undefined
  locations: StorageLocation[]
  /** The warehouses without storage locations (lower-case IDs): no location is asked there. */
  unlocated: ReadonlySet<string>
  onToggle: () => void
  onChange: (d: Draft) => void
}) {
  const error = draft ? receiveError(draft.quantity, line.fractions) : null
  const over = !!draft && !error && overDelivered(draft.quantity, line.open)
  const own = locations.filter((l) => l.Warehouse?.toLowerCase() === line.warehouseId.toLowerCase())
  return (
    <li className={`flex flex-wrap items-start gap-3 p-3 ${draft ? 'bg-sky-50' : ''}`} data-testid="open-line">
      {/* as tall as the quantity and location beside it, ticked or not: ticking moves no other line */}
      <label className="flex min-h-23 min-w-0 flex-1 cursor-pointer items-start gap-3">
        <input type="checkbox" checked={!!draft} onChange={onToggle} className="mt-1 h-6 w-6 shrink-0" />
        <span className="flex min-w-0 flex-col">
          <span className="font-mono text-sm font-semibold">{line.itemCode}</span>
          <span className="text-sm text-slate-700">{line.itemDescription}</span>
          <span className="text-xs text-slate-500">
            {t('receipts.lineMeta', {
              order: line.orderNumber,
              supplier: line.supplier,
              open: formatQuantity(line.open, locale()),
              ordered: formatQuantity(line.ordered, locale()),
              unit: line.unit,
            })}
          </span>
        </span>
      </label>
      <div className="flex w-32 shrink-0 flex-col gap-1 sm:w-56">
        {draft && (
          <>
            <input
              className={inputClass}
              inputMode="decimal"
              aria-label={t('receipts.quantity')}
              value={draft.quantity}
              aria-invalid={!!error}
              onChange={(e) => onChange({ ...draft, quantity: e.target.value })}
            />
            {unlocated.has(line.warehouseId.toLowerCase()) ? (
              <span className="text-sm text-slate-700" data-testid="no-locations">
                {t('receipts.noLocations', { warehouse: line.warehouse })}
              </span>
            ) : (
              <Select aria-label={t('receipts.location')} value={draft.location} onChange={(e) => onChange({ ...draft, location: e.target.value })}>
                <option value="">{t('receipts.defaultLocation', { warehouse: line.warehouse })}</option>
                {own.map((l) => (
                  <option key={l.ID} value={l.ID}>
                    {l.Code} {l.Description}
                  </option>
                ))}
              </Select>
            )}
            {error && (
              <span role="alert" className="text-sm text-red-700">
                {t(error, { unit: line.unit })}
              </span>
            )}
            {over && (
              <span className="text-sm text-amber-800" data-testid="over-delivery">
                {t('receipts.overDelivery', { open: formatQuantity(line.open, locale()) })}
              </span>
            )}
          </>
        )}
      </div>
      {draft && line.tracking !== 'none' && (
        <div className="flex basis-full flex-col gap-1">
          <TrackedNumbers
            id={`receive-numbers-${line.id}`}
            tracking={line.tracking}
            mode="receive"
            item={line.item}
            quantity={parseQuantity(draft.quantity)}
            onReport={(numbers) => onChange({ ...draft, numbers })}
          />
          <NumbersNotReady report={draft.numbers} />
        </div>
      )}
    </li>
  )
}

/** Receive open purchase order lines: scan or search, quantity and storage location, send. */
export function ReceiveModal({ onClose }: { onClose: () => void }) {
  const scanRef = useRef<HTMLInputElement>(null)
  const queryClient = useQueryClient()
  const division = useDivision()
  const lines = useQuery({
    queryKey: receiptKeys.openLines(division),
    queryFn: fetchOpenLines,
    retry: false,
    staleTime: LIVE_STALE_MS,
    refetchInterval: againWhileStored,
  })
  const locations = useQuery({
    ...liveListQuery<StorageLocation>('storageLocations', division),
    ...LIVE_LIST_RETRY,
  })
  const warehouses = useQuery({ ...liveListQuery<WarehouseRef>('warehouses', division), ...LIVE_LIST_RETRY })
  const unlocated = useMemo(() => unlocatedIds(warehouses.data?.rows), [warehouses.data])
  const [search, setSearch] = useState('')
  const [drafts, setDrafts] = useState<Record<string, Draft>>({})
  const [sending, setSending] = useState(false)
  const [outcomes, setOutcomes] = useState<{ order: string; outcome: WriteOutcome }[]>([])
  const [sendError, setSendError] = useState<string | null>(null)
  // over-deliveries are listed for a confirmation before anything is sent
  const [confirming, setConfirming] = useState(false)

  // showModal focuses the first button (the help tip); a scanner types into the search box
  useEffect(() => scanRef.current?.focus(), [])

  const all = useMemo(() => lines.data?.rows ?? [], [lines.data])
  const matching = useMemo(() => all.filter((l) => matchesLine(l, search)), [all, search])
  const chosen = all.filter((l) => drafts[l.id])
  const invalid = chosen.some((l) => receiveError(drafts[l.id].quantity, l.fractions) !== null || drafts[l.id].numbers.problem !== null)
  const over = chosen.filter((l) => overDelivered(drafts[l.id].quantity, l.open))

  const toggle = (l: OpenLine) => {
    setConfirming(false)
    setDrafts((d) => {
      const next = { ...d }
      if (next[l.id]) delete next[l.id]
      else next[l.id] = { quantity: String(l.open), location: '', numbers: UNTRACKED }
      return next
    })
  }

  async function send() {
    setConfirming(false)
    setSending(true)
    setSendError(null)
    const bodies = receiptBodies(
      chosen.map((l) => ({
        line: l,
        quantity: parseQuantity(drafts[l.id].quantity) ?? 0,
        location: drafts[l.id].location,
        numbers: drafts[l.id].numbers.numbers,
      })),
    )
    const done: { order: string; outcome: WriteOutcome }[] = []
    try {
      for (const b of bodies)
        done.push({ order: b.orderNumber, outcome: await createGoodsReceipt(b.body, t('offline.goodsReceipt', { number: b.orderNumber, lines: b.lines })) })
      setDrafts({})
    } catch (e) {
      setSendError(userMessage(e))
    } finally {
      setOutcomes((o) => [...done, ...o])
      setSending(false)
    }
  }

  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: receiptKeys.all })
  }

  return (
    <Dialog
      labelledBy="receive-title"
      onClose={onClose}
      className="m-0 h-full max-h-none w-full max-w-none bg-slate-50 p-0 backdrop:bg-black/40 md:m-auto md:h-[90vh] md:max-w-3xl md:rounded-lg"
    >
      <div className="flex h-full flex-col">
        <header className="flex items-center justify-between gap-2 border-b border-slate-200 bg-white p-3">
          <h2 id="receive-title" className="flex items-center gap-2 text-lg font-semibold">
            {t('receipts.receiveTitle')}
            <InfoTip label={t('receipts.receiveHelp')} text={t('tooltip.receive')} />
          </h2>
          <Button type="button" variant="secondary" onClick={onClose}>
            {t('receipts.close')}
          </Button>
        </header>
        <div className="flex flex-col gap-2 border-b border-slate-200 bg-white p-3">
          <label className={labelClass}>
            {t('receipts.scan')}
            <input
              ref={scanRef}
              className={inputClass}
              type="search"
              value={search}
              placeholder={t('receipts.scanPlaceholder')}
              onChange={(e) => setSearch(e.target.value)}
              onKeyDown={(e) => {
                // a scanner ends with Enter: one match is picked straight away
                if (e.key === 'Enter' && matching.length === 1 && !drafts[matching[0].id]) {
                  e.preventDefault()
                  toggle(matching[0])
                  // the next scan replaces this code instead of being added to it
                  e.currentTarget.select()
                }
              }}
            />
          </label>
          {lines.isSuccess && (
            <p className="text-xs text-slate-500" data-testid="open-line-count">
              {t('receipts.openCount', { shown: Math.min(matching.length, SHOWN), total: matching.length })}
            </p>
          )}
          <AsOf asOf={oldestAsOf(lines.data?.asOf, locations.data?.asOf)} compact />
          {(locations.error ?? locations.failureReason) && (
            <p role="alert" className="text-xs text-red-700">
              {userMessage(locations.error ?? locations.failureReason)}
            </p>
          )}
        </div>
        <div className="flex-1 overflow-y-auto">
          {lines.isPending && <p className="p-4 text-slate-500">{t('receipts.loadingLines')}</p>}
          {lines.error && (
            <p role="alert" className="p-4 text-red-700">
              {t('receipts.loadError', { message: userMessage(lines.error) })}
            </p>
          )}
          {lines.isSuccess && matching.length === 0 && <p className="p-4 text-slate-600">{t('receipts.noOpenLines')}</p>}
          <ul className="divide-y divide-slate-200 bg-white">
            {[...chosen.filter((l) => !matching.slice(0, SHOWN).includes(l)), ...matching.slice(0, SHOWN)].map((l) => (
              <LineRow
                key={l.id}
                line={l}
                draft={drafts[l.id]}
                locations={locations.data?.rows ?? []}
                unlocated={unlocated}
                onToggle={() => toggle(l)}
                onChange={(d) => {
                  setConfirming(false)
                  setDrafts((all) => ({ ...all, [l.id]: d }))
                }}
              />
            ))}
          </ul>
        </div>
        <footer className="flex flex-col gap-2 border-t border-slate-200 bg-white p-3">
          {sendError && (
            <p role="alert" className="text-sm text-red-700">
              {sendError}
            </p>
          )}
          {outcomes.map((o, i) => (
            <WriteStatus key={outcomes.length - i} outcome={o.outcome} what={t('receipts.receiptFor', { order: o.order })} onDelivered={refresh} />
          ))}
          {confirming && over.length > 0 ? (
            <div role="alertdialog" aria-labelledby="confirm-over-title" className="flex flex-col gap-2 rounded-md border border-amber-400 bg-amber-50 p-3">
              <p id="confirm-over-title" className="font-semibold text-amber-900">
                {t('receipts.confirmOverTitle')}
              </p>
              <ul className="text-sm text-amber-900">
                {over.map((l) => (
                  <li key={l.id}>
                    {t('receipts.confirmOverLine', {
                      order: l.orderNumber,
                      code: l.itemCode,
                      quantity: formatQuantity(parseQuantity(drafts[l.id].quantity) ?? 0, locale(), 6),
                      open: formatQuantity(l.open, locale()),
                    })}
                  </li>
                ))}
              </ul>
              <div className="flex flex-wrap gap-2">
                <Button type="button" variant="primary" disabled={sending} onClick={() => void send()} autoFocus>
                  {t('receipts.confirmOver')}
                </Button>
                <Button type="button" variant="secondary" onClick={() => setConfirming(false)}>
                  {t('receipts.confirmBack')}
                </Button>
              </div>
            </div>
          ) : (
            <Button
              type="button"
              variant="primary"
              disabled={!chosen.length || invalid || sending}
              onClick={() => (over.length ? setConfirming(true) : void send())}
            >
              {sending ? t('receipts.sending') : t('receipts.receiveButton', { count: chosen.length })}
            </Button>
          )}
        </footer>
      </div>
    </Dialog>
  )
}
