import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query'
import { useMemo, useRef, useState } from 'react'
import { receiptKeys, useSession } from '../../api/queries.ts'
import { fetchReceiptHeaders, fetchReceiptLines } from '../../api/receipts.ts'
import { oldestAsOf } from '../../api/live.ts'
import { againWhileStored, LIVE_STALE_MS } from '../../api/exactDirect.ts'
import { inputClass } from '../../components/ui/Field.tsx'
import { sectionClass } from '../../components/ui/Section.tsx'
import { AsOf } from '../../components/AsOf.tsx'
import { LoadingScreen } from '../../components/LoadingScreen.tsx'
import { locale, t } from '../../i18n/index.ts'
import { formatDate } from '../../lib/dateTime.ts'
import { formatQuantity } from '../../lib/quantity.ts'
import { linesByReceipt, matchesReceipt, RECEIPT_DAYS, receiptKey, type Receipt, type ReceiptLine } from '../../lib/receipts.ts'
import { PrintBar } from './PrintBar.tsx'
import { PrintPanel } from './PrintPanel.tsx'
import { ReceiveModal } from './ReceiveModal.tsx'
import { userMessage } from '../../lib/errors.ts'
import { Button } from '../../components/ui/Button.tsx'

function ReceiptCard({ receipt, linesRead, picked, onPick }: { receipt: Receipt; linesRead: boolean; picked: Set<string>; onPick: (l: ReceiptLine) => void }) {
  return (
    <li className="rounded-lg bg-white shadow" data-testid="receipt">
      <header className="flex flex-wrap items-baseline gap-x-4 gap-y-1 border-b border-slate-100 px-3 py-2">
        <span className="font-semibold">{t('receipts.number', { number: receipt.number })}</span>
        <span className="text-sm text-slate-600">{receipt.date === null ? '–' : formatDate(receipt.date)}</span>
        <span className="text-sm text-slate-700">{receipt.supplier}</span>
        <span className="text-sm text-slate-500">{t('receipts.warehouse', { code: receipt.warehouse })}</span>
      </header>
      <ul className="divide-y divide-slate-100">
        {receipt.lines.map((l) => (
          <li key={l.id}>
            <label className="flex min-h-11 cursor-pointer items-center gap-3 px-3 py-2">
              <input
                type="checkbox"
                className="h-6 w-6 shrink-0"
                checked={picked.has(l.id)}
                onChange={() => onPick(l)}
                aria-label={t('receipts.pick', { code: l.itemCode })}
              />
              <span className="flex min-w-0 flex-1 flex-col sm:flex-row sm:items-baseline sm:gap-3">
                <span className="font-mono text-sm">{l.itemCode}</span>
                <span className="truncate text-sm text-slate-700">{l.itemDescription}</span>
              </span>
              <span className="text-right text-sm tabular-nums">
                {formatQuantity(l.quantity, locale())}
                <span className="block text-xs text-slate-500">
                  {t('receipts.orderShort', { number: l.orderNumber })}
                  {l.location ? ` · ${l.location}` : ''}
                </span>
              </span>
            </label>
          </li>
        ))}
        {receipt.lines.length === 0 && (
          <li className="px-3 py-2 text-sm text-slate-500" data-testid={linesRead ? undefined : 'receipt-lines-reading'}>
            {t(linesRead ? 'receipts.noLines' : 'receipts.linesReading')}
          </li>
        )}
      </ul>
    </li>
  )
}

/**
 * Receipts rendered at first, more on demand: a busy month has hundreds of receipts, and
 * rendering all of them (27,000 elements at scale medium) kept the screen from showing for seconds.
 */
const PAGE = 50

/** Goods receipts of the last 30 days, receiving open purchase order lines, and receipt labels. */
export default function Receipts() {
  const { data: session } = useSession()
  const division = session?.division ?? 0
  // the receipts first (the list and its count), then the lines of those on screen, then the
  // lines of the rest, which the search reads: at scale large the lines are most of the calls
  const headers = useQuery({
    queryKey: receiptKeys.list(division),
    queryFn: () => fetchReceiptHeaders(),
    retry: false,
    staleTime: LIVE_STALE_MS,
    refetchInterval: againWhileStored,
  })
  const [receiving, setReceiving] = useState(false)
  const [search, setSearch] = useState('')
  const [limit, setLimit] = useState(PAGE)
  const [picked, setPicked] = useState<Map<string, ReceiptLine>>(new Map())
  const queryClient = useQueryClient()
  const all = useMemo(() => headers.data?.rows ?? [], [headers.data])
  const onScreen = useMemo(() => all.slice(0, limit).map((r) => r.id), [all, limit])
  const linesOptions = { retry: false, staleTime: LIVE_STALE_MS, refetchInterval: againWhileStored } as const
  const allIds = useMemo(() => all.map((r) => r.id), [all])
  // once every receipt's lines are read, "Show more" needs no read of its own; a new receipt (one
  // just made) has its lines read with those on screen again (the read of all, below, renders
  // this again when it ends)
  const allRead = queryClient.getQueryState(receiptKeys.lines(division, allIds))?.status === 'success'
  const first = useQuery({
    queryKey: receiptKeys.lines(division, onScreen),
    queryFn: () => fetchReceiptLines(onScreen),
    enabled: onScreen.length > 0 && !allRead,
    placeholderData: keepPreviousData,
    ...linesOptions,
  })
  const firstDone = first.isFetched && !first.isPlaceholderData
  const rest = useQuery({
    queryKey: receiptKeys.lines(division, allIds),
    queryFn: () => fetchReceiptLines(allIds),
    enabled: all.length > 0 && (firstDone || allRead),
    placeholderData: keepPreviousData,
    ...linesOptions,
  })
  // each read sets the lines of the receipts it asked for: a receipt is read when one holds it
  const lines = useMemo(() => {
    const out = new Map<string, ReceiptLine[]>()
    for (const part of [rest.data, first.data]) {
      if (!part) continue
      const by = linesByReceipt(part.rows)
      for (const id of part.receipts) out.set(receiptKey(id), by.get(receiptKey(id)) ?? [])
    }
    return out
  }, [rest.data, first.data])
  const receipts = useMemo<Receipt[]>(() => all.map((r) => ({ ...r, lines: lines.get(receiptKey(r.id)) ?? [] })), [all, lines])
  const shown = useMemo(() => receipts.filter((r) => matchesReceipt(r, search)), [receipts, search])
  const linesError = rest.error ?? first.error
  const pickedIds = useMemo(() => new Set(picked.keys()), [picked])
  const printTitle = useRef<HTMLHeadingElement>(null)
  // the panel's top at the top of the screen, and the focus on its title for a keyboard or a screen reader
  const toPanel = () => {
    const title = printTitle.current
    title?.closest('section')?.scrollIntoView?.({ block: 'start' })
    title?.focus({ preventScroll: true })
  }

  const toggle = (l: ReceiptLine) =>
    setPicked((p) => {
      const next = new Map(p)
      if (next.has(l.id)) next.delete(l.id)
      else next.set(l.id, l)
      return next
    })

  return (
    <div className="mx-auto flex w-full max-w-5xl flex-1 flex-col gap-4 p-3 md:p-6">
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div>
          <h1 className="text-2xl font-bold text-sky-900">{t('receipts.title')}</h1>
          <p className="text-sm text-slate-600">{t('receipts.window', { days: RECEIPT_DAYS })}</p>
        </div>
        <div className="flex gap-2">
          <Button
            type="button"
            variant="secondary"
            onClick={() => {
              void headers.refetch()
              void queryClient.invalidateQueries({ queryKey: receiptKeys.linesAll(division) })
            }}
            disabled={headers.isFetching}
          >
            {t('receipts.refresh')}
          </Button>
          <Button type="button" variant="primary" onClick={() => setReceiving(true)}>
            {t('receipts.receive')}
          </Button>
        </div>
      </div>
      <p className="rounded bg-sky-50 p-3 text-sm text-sky-900">{t('tip.receipts')}</p>
      <section className={sectionClass} aria-labelledby="receipts-list">
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h2 id="receipts-list" className="text-lg font-semibold">
            {t('receipts.listTitle')}
          </h2>
          {headers.isSuccess && (
            <span className="text-sm text-slate-600" data-testid="receipt-count">
              {t('receipts.count', { shown: shown.length, total: all.length })}
            </span>
          )}
        </div>
        <AsOf asOf={oldestAsOf(headers.data?.asOf, first.data?.asOf, rest.data?.asOf)} />
        <input
          className={inputClass}
          type="search"
          value={search}
          onChange={(e) => {
            setSearch(e.target.value)
            setLimit(PAGE)
          }}
          placeholder={t('receipts.searchPlaceholder')}
          aria-label={t('receipts.search')}
        />
        {search.trim() && all.length > 0 && !allRead && !linesError && (
          <p role="status" className="text-sm text-slate-600">
            {t('receipts.searchWaitsForLines')}
          </p>
        )}
        {headers.isPending && <LoadingScreen />}
        {(headers.error ?? linesError) && (
          <p role="alert" className="text-red-700">
            {t('receipts.loadError', { message: userMessage(headers.error ?? linesError) })}
          </p>
        )}
        {headers.isSuccess && shown.length === 0 && <p className="text-slate-600">{t('receipts.none')}</p>}
        <ul className="flex flex-col gap-3 bg-slate-50">
          {shown.slice(0, limit).map((r) => (
            <ReceiptCard key={r.id} receipt={r} linesRead={lines.has(receiptKey(r.id))} picked={pickedIds} onPick={toggle} />
          ))}
        </ul>
        {limit < shown.length && (
          <Button type="button" variant="secondary" className="self-center" onClick={() => setLimit(limit + PAGE)}>
            {t('receipts.more', { count: Math.min(PAGE, shown.length - limit), left: shown.length - limit })}
          </Button>
        )}
      </section>
      {/* below the list: opening above it moved the next line's checkbox away from the finger; the bar brings it near */}
      {picked.size > 0 && <PrintBar count={picked.size} onOpen={toPanel} onClear={() => setPicked(new Map())} />}
      {picked.size > 0 && (
        <PrintPanel
          lines={[...picked.values()]}
          division={division}
          titleRef={printTitle}
          onRemove={(id) => setPicked((p) => new Map([...p].filter(([k]) => k !== id)))}
        />
      )}
      {receiving && <ReceiveModal onClose={() => setReceiving(false)} />}
    </div>
  )
}
