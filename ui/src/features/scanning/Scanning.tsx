import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useCallback, useMemo, useState } from 'react'
import { liveListQuery } from '../../api/db.ts'
import { isNetworkFailure } from '../../api/client.ts'
import { useSession } from '../../api/queries.ts'
import { itemStockQuery, itemWarehouseStockQuery, findItem, itemById, shopOrderByNumber, type ScannedItem, type ScanShopOrder } from '../../api/scan.ts'
import { AsOf } from '../../components/AsOf.tsx'
import { Loading } from '../../components/Loading.tsx'
import { locale, t, type MessageKey } from '../../i18n/index.ts'
import { formatQuantity } from '../../lib/quantity.ts'
import { fetchOpenLinesOfOrder } from '../../api/receipts.ts'
import type { OpenLine } from '../../lib/receipts.ts'
import { signal } from '../../lib/feedback.ts'
import { formatAsOf } from '../../lib/dateTime.ts'
import { classifyScan, type LocationRef } from '../../lib/scan.ts'
import { catalogueKey, freshCatalogue, isCatalogueRef, loadCatalogue, type ScanCatalogue } from '../../offline/catalogue.ts'
import { isOfflineNow, useOffline } from '../../state/reachability.ts'
import { CameraScanner, cameraUnavailable } from './CameraScanner.tsx'
import { CountPanel } from './CountPanel.tsx'
import { locationLabel } from '../../components/scanFields.tsx'
import { IssuePanel } from './IssuePanel.tsx'
import { ItemCard } from './ItemCard.tsx'
import { useWaitingOut } from './needing.ts'
import { LabelPanel } from './LabelPanel.tsx'
import { LocationContents } from './LocationContents.tsx'
import { ReceivePanel } from './ReceivePanel.tsx'
import { ScanInput } from './ScanInput.tsx'
import { TransferPanel } from './TransferPanel.tsx'
import { routeScan } from '../../components/tracking/scans.ts'
import { isWarehousePlace, placesOf, sourcesOf, unlocatedIds, type WarehouseRef } from '../../lib/places.ts'
import { userMessage } from '../../lib/errors.ts'

type Action = 'issue' | 'receive' | 'transfer' | 'count' | 'label'

const ACTIONS: { action: Action; label: MessageKey }[] = [
  { action: 'issue', label: 'scanning.actionIssue' },
  { action: 'receive', label: 'scanning.actionReceive' },
  { action: 'transfer', label: 'scanning.actionTransfer' },
  { action: 'count', label: 'scanning.actionCount' },
  { action: 'label', label: 'scanning.actionLabel' },
]

/** The storage location in context survives a reload of the page (not a logout). */
const LOCATION_KEY = 'esm.scan.location'

function storedLocation(): LocationRef | null {
  try {
    const raw = sessionStorage.getItem(LOCATION_KEY)
    return raw ? (JSON.parse(raw) as LocationRef) : null
  } catch {
    return null
  }
}

const locationsQuery = (division: number) => ({
  ...liveListQuery<LocationRef>('storageLocations', division),
  staleTime: 10 * 60_000,
})

/** The warehouses, to know which keep no storage locations (the pickers offer those whole). */
const warehousesQuery = (division: number) => ({
  ...liveListQuery<WarehouseRef>('warehouses', division),
  staleTime: 10 * 60_000,
})

/** Where a scan is looked up: the server's copy, or the catalogue this device keeps. */
interface ScanSource {
  locations: () => Promise<LocationRef[]>
  findItem: (code: string) => Promise<ScannedItem | null>
  itemById: (id: string) => Promise<ScannedItem | null>
  shopOrderByNumber: (n: number) => Promise<ScanShopOrder | null>
  /** The kept catalogue's time, named in its messages; null for the server's copy. */
  keptAt: string | null
  /** The code was already asked as an item (and is none). */
  itemAsked: boolean
}

interface Current {
  item: ScannedItem
  order: ScanShopOrder | null
  /** The purchase order line a scanned purchase order named for the item. */
  line: OpenLine | null
  /** Bumped on every scan, so the panels start afresh even for the same item. */
  seq: number
}

/** How often an open Scanning screen asks whether the kept catalogue is still the server's (a 304 mostly). */
const CATALOGUE_CHECK_MS = 5 * 60_000

const keptTitle = (time: string) => t('scanning.keptTitle', { time })

/** The handheld's home: scan a location, an item or a shop order, then act on the item. */
export default function Scanning() {
  const { data: session } = useSession()
  const queryClient = useQueryClient()
  const division = session?.division
  const locations = useQuery(locationsQuery(division ?? 0))
  const warehouses = useQuery(warehousesQuery(division ?? 0))
  const [location, setLocationState] = useState<LocationRef | null>(storedLocation)
  const [current, setCurrent] = useState<Current | null>(null)
  const [action, setAction] = useState<Action | null>(null)
  const [notice, setNotice] = useState<{ ok: boolean; text: string } | null>(null)
  const [busy, setBusy] = useState(false)
  const [camera, setCamera] = useState(false)
  const [history, setHistory] = useState<string[]>([])
  // a scanned purchase order of several lines: the worker picks one (or scans the box)
  const [purchase, setPurchase] = useState<{ number: number; lines: OpenLine[] } | null>(null)
  // the last scan named a location: what is expected there is listed (below a card shown)
  const [atLocation, setAtLocation] = useState(false)
  const cameraProblem = useMemo(() => cameraUnavailable(), [])
  const offline = useOffline()
  // refreshed on opening while the server is in reach (and after each sync, see AppShell)
  const catalogue = useQuery({
    queryKey: catalogueKey(division ?? 0),
    queryFn: () => freshCatalogue(division!),
    enabled: division !== undefined,
    staleTime: 60_000,
    refetchInterval: CATALOGUE_CHECK_MS,
    retry: false,
  })
  const kept = catalogue.data ?? null

  const stock = useQuery({
    ...itemStockQuery(current?.item.ID),
    // an item shown from the catalogue is named by its code, which the server's reads do not take
    enabled: !!current && !isCatalogueRef(current.item.ID),
    // writes reach the local copy through the outbox's sync a few seconds later
    refetchInterval: 5000,
  })
  // warehouses without storage locations have their stock only here
  const warehouseStock = useQuery({
    ...itemWarehouseStockQuery(current?.item.ID),
    enabled: !!current && !isCatalogueRef(current.item.ID),
    refetchInterval: 5000,
  })

  const setLocation = (l: LocationRef | null) => {
    setLocationState(l)
    try {
      if (l) sessionStorage.setItem(LOCATION_KEY, JSON.stringify(l))
      else sessionStorage.removeItem(LOCATION_KEY)
    } catch {
      // storage blocked: the context lasts for this page
    }
  }

  const show = (item: ScannedItem, order: ScanShopOrder | null, next: Action | null, line: OpenLine | null = null) => {
    setAtLocation(false)
    setCurrent((c) => ({ item, order, line, seq: (c?.seq ?? 0) + 1 }))
    setAction(next)
  }

  /** A line of a scanned purchase order chosen: its item, ready to receive. */
  const receiveLine = async (line: OpenLine) => {
    const item = await itemById(line.item)
    if (!item) {
      signal(false)
      setNotice({ ok: false, text: t('scanning.notFound', { code: line.itemCode }) })
      return
    }
    signal(true)
    setNotice(null)
    setPurchase(null)
    show(item, null, 'receive', line)
  }

  const onScan = useCallback(
    async (code: string) => {
      setHistory((h) => [code, ...h].slice(0, 5))
      const fail = (text: string) => {
        signal(false)
        setNotice({ ok: false, text })
      }
      const shown = (item: ScannedItem) => {
        signal(true)
        setNotice(null)
        // the box of a line of the purchase order just scanned: that line, to receive
        const line = purchase?.lines.find((l) => l.item.toLowerCase() === item.ID.toLowerCase())
        setPurchase(null)
        show(item, null, line ? 'receive' : null, line ?? null)
      }
      // One way to resolve a scan, whichever copy answers: a location sets the context, a shop
      // order opens its item to receive, an item shows; a bare number that is no item may be a
      // shop order's number.
      const resolve = async (src: ScanSource) => {
        const kind = classifyScan(code, await src.locations())
        if (kind.kind === 'location') {
          setLocation(kind.location)
          setAtLocation(true)
          signal(true)
          setNotice({ ok: true, text: t('scanning.locationSet', { location: locationLabel(kind.location) }) })
          return
        }
        if (kind.kind === 'empty') return
        const byNumber = async (n: number) => {
          const order = await src.shopOrderByNumber(n)
          if (!order) return false
          const item = await src.itemById(order.Item)
          if (!item) {
            fail(t('scanning.orderItemMissing', { number: n }))
            return true
          }
          signal(true)
          setNotice({ ok: true, text: t('scanning.orderFound', { number: n }) })
          show(item, order, 'receive')
          return true
        }
        if (kind.kind === 'purchaseOrder') {
          // read live from Exact Online: a kept copy has no purchase orders
          if (src.keptAt !== null) return fail(t('scanning.purchaseOrderOffline', { number: kind.number }))
          const { rows } = await fetchOpenLinesOfOrder(kind.number)
          if (rows.length === 0) return fail(t('scanning.purchaseOrderNotFound', { number: kind.number }))
          if (rows.length === 1) return receiveLine(rows[0])
          signal(true)
          setNotice({ ok: true, text: t('scanning.purchaseOrderFound', { number: kind.number }) })
          setPurchase({ number: kind.number, lines: rows })
          return
        }
        if (kind.kind === 'shopOrder') {
          if (!(await byNumber(kind.number))) {
            fail(
              src.keptAt === null
                ? t('scanning.orderNotFound', { number: kind.number })
                : t('scanning.orderNotFoundKept', { number: kind.number, time: src.keptAt }),
            )
          }
          return
        }
        const item = src.itemAsked ? null : await src.findItem(kind.code)
        if (item) return shown(item)
        if (kind.orderNumber !== null && (await byNumber(kind.orderNumber))) return
        fail(src.keptAt === null ? t('scanning.notFound', { code: kind.code }) : t('scanning.notFoundKept', { code: kind.code, time: src.keptAt }))
      }
      // Out of reach of the server (a Wi-Fi dead spot): the scan is resolved from the catalogue
      // this device keeps, and the item is shown as of that copy.
      const scanKept = async () => {
        const c: ScanCatalogue | null =
          (division === undefined ? null : (queryClient.getQueryData<ScanCatalogue | null>(catalogueKey(division)) ?? (await loadCatalogue(division)))) ?? null
        // no copy kept, or one of a never-synced store: what any call out of reach says
        if (!c || c.asOf === null) return fail(t('error.network'))
        return resolve({
          locations: async () => c.locations(),
          findItem: async (x) => c.findItem(x),
          itemById: async (id) => c.itemById(id),
          shopOrderByNumber: async (n) => c.shopOrderByNumber(n),
          keptAt: formatAsOf(c.asOf),
          itemAsked: false,
        })
      }
      setBusy(true)
      try {
        if (isOfflineNow()) return await scanKept()
        // Until Exact has answered the locations (slow while a sync spends the minute's calls),
        // an item scan is not held up: the local items are asked first.
        let itemAsked = false
        if (!queryClient.getQueryData(locationsQuery(division ?? 0).queryKey)) {
          itemAsked = true
          const early = await findItem(code)
          if (early) return shown(early)
        }
        await resolve({
          locations: () =>
            queryClient
              .ensureQueryData(locationsQuery(division ?? 0))
              .then((l) => l.rows)
              .catch(() => [] as LocationRef[]),
          findItem,
          itemById,
          shopOrderByNumber,
          keptAt: null,
          itemAsked,
        })
      } catch (e) {
        if (isNetworkFailure(e)) await scanKept().catch((k: unknown) => fail(userMessage(k)))
        else fail(userMessage(e))
      } finally {
        setBusy(false)
      }
    },
    [queryClient, division, purchase],
  )
  const closeCamera = useCallback(() => setCamera(false), [])
  // a code scanned while a booking waits for serial or batch numbers is one of them
  const scan = useCallback((code: string) => void (routeScan(code) || onScan(code)), [onScan])

  // issued here and not yet in Exact's figures: the card's stock leaves it out
  const waitingOut = useWaitingOut(current?.item ?? null, kept)
  if (!session) return <Loading />
  // the kept catalogue's figures while the live ones cannot be had
  // an item found in the catalogue (named by its code) is shown from it until the next scan
  const namedByCatalogue = !!current && isCatalogueRef(current.item.ID)
  const fromKept = !!current && !!kept && !stock.data && (offline || namedByCatalogue || isNetworkFailure(stock.error))
  const stockRows = fromKept ? kept.stockOfItem(current.item.Code) : stock.data
  const warehouseRows = fromKept ? kept.warehouseStockOfItem(current.item.Code) : warehouseStock.data
  const all = locations.data?.rows ?? kept?.locations() ?? []
  // the storage locations, then the warehouses without them (picked as a whole)
  const places = placesOf(all, warehouses.data?.rows ?? kept?.unlocatedWarehouses())
  const itemLocations = all.filter((l) => stockRows?.some((s) => s.StorageLocation === l.ID))
  const itemPlaces = [
    ...itemLocations,
    ...sourcesOf(
      places.filter((p) => isWarehousePlace(p.ID)),
      new Set(),
      warehouseRows,
    ),
  ]
  // the stock-based panels start again once the stock is known (their places and defaults come
  // from it); receiving and labels do not use it, so what the worker typed there stays
  const panelKey = `${current?.seq}-${action}-${location?.ID ?? ''}-${stock.isSuccess}`
  const stockFreeKey = `${current?.seq}-${action}-${location?.ID ?? ''}`

  return (
    <div className="mx-auto flex w-full max-w-2xl flex-1 flex-col gap-3 p-3 md:p-6">
      <h1 className="sr-only">{t('scanning.title')}</h1>
      <ScanInput onScan={scan} busy={busy} />
      <div className="flex flex-wrap items-center gap-2">
        {location ? (
          <p data-testid="scan-location" className="flex min-h-12 items-center gap-2 rounded-full bg-amber-100 py-1 pr-1 pl-4 text-base text-amber-950">
            <span>{t('scanning.atLocation', { location: locationLabel(location) })}</span>
            <button
              type="button"
              onClick={() => setLocation(null)}
              aria-label={t('scanning.clearLocation')}
              className="h-11 w-11 rounded-full bg-white/70 text-xl leading-none"
            >
              ×
            </button>
          </p>
        ) : (
          <p className="text-sm text-slate-600">{t('scanning.noLocationHint')}</p>
        )}
        <button
          type="button"
          onClick={() => setCamera((c) => !c)}
          disabled={!!cameraProblem}
          className="ml-auto min-h-12 rounded-lg border border-sky-800 px-4 font-medium text-sky-900 disabled:opacity-50"
        >
          {t('scanning.camera')}
        </button>
      </div>
      {cameraProblem && (
        <p className="text-sm text-slate-600" data-testid="camera-note">
          {cameraProblem}
        </p>
      )}
      {camera && !cameraProblem && <CameraScanner onScan={scan} onClose={closeCamera} />}
      {locations.error && (
        <p role="alert" className="text-red-700">
          {t('scanning.locationsFailed', { message: userMessage(locations.error) })}
        </p>
      )}
      <AsOf asOf={locations.data?.asOf} compact />
      {busy && <p role="status">{t('scanning.looking')}</p>}
      {notice && (
        <p
          role={notice.ok ? 'status' : 'alert'}
          data-testid="scan-notice"
          className={`rounded-md p-3 text-base ${notice.ok ? 'bg-emerald-50 text-emerald-900' : 'bg-red-50 text-red-800'}`}
        >
          {notice.text}
        </p>
      )}
      {purchase && (
        <section aria-labelledby="purchase-lines" className="rounded-lg bg-white p-3 shadow" data-testid="purchase-lines">
          <h2 id="purchase-lines" className="mb-2 text-base font-semibold">
            {t('scanning.purchaseOrderLines', { number: purchase.number })}
          </h2>
          <ul className="flex flex-col gap-2">
            {purchase.lines.map((l) => (
              <li key={l.id}>
                <button
                  type="button"
                  onClick={() => void receiveLine(l)}
                  className="min-h-14 w-full rounded-lg border border-sky-800 px-3 py-2 text-left text-base text-sky-950"
                >
                  {t('scanning.purchaseOrderLine', { code: l.itemCode, description: l.itemDescription, open: formatQuantity(l.open, locale(), 3) })}
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
      {current && (
        <>
          {fromKept && <AsOf asOf={kept.asOf} compact title={keptTitle} />}
          <ItemCard
            item={current.item}
            stock={stockRows}
            warehouses={warehouseRows}
            stockLoading={!fromKept && (stock.isPending || warehouseStock.isPending)}
            location={location}
            division={session.division}
            waiting={waitingOut}
          >
            <div role="group" aria-label={t('scanning.actions')} className="grid grid-cols-3 gap-2 sm:grid-cols-5">
              {ACTIONS.map((a) => (
                <button
                  key={a.action}
                  type="button"
                  aria-pressed={action === a.action}
                  onClick={() => setAction(action === a.action ? null : a.action)}
                  className={`min-h-14 rounded-lg px-2 text-base font-semibold ${action === a.action ? 'bg-sky-800 text-white' : 'border border-sky-800 bg-white text-sky-900'}`}
                >
                  {t(a.label)}
                </button>
              ))}
            </div>
            {action === 'issue' && (
              <IssuePanel
                key={panelKey}
                item={current.item}
                location={location}
                itemLocations={itemLocations}
                stock={stockRows}
                warehouseStock={warehouseRows}
                unlocated={unlocatedIds(warehouses.data?.rows ?? kept?.unlocatedWarehouses())}
                catalogue={kept}
              />
            )}
            {action === 'receive' && (
              <ReceivePanel key={stockFreeKey} item={current.item} location={location} scanned={current.order} scannedLine={current.line} catalogue={kept} />
            )}
            {action === 'transfer' && (
              <TransferPanel key={panelKey} item={current.item} location={location} stock={stockRows ?? []} warehouseStock={warehouseRows} locations={places} />
            )}
            {action === 'count' && (
              <CountPanel
                key={panelKey}
                item={current.item}
                location={location}
                itemLocations={itemPlaces}
                locations={places}
                stock={stockRows}
                warehouseStock={warehouseRows}
              />
            )}
            {action === 'label' &&
              (namedByCatalogue ? (
                <p className="text-sm text-slate-600">{t('scanning.keptNoLabels')}</p>
              ) : (
                <LabelPanel key={stockFreeKey} source="item_direct" id={current.item.ID} title={t('scanning.labelTitle')} />
              ))}
          </ItemCard>
        </>
      )}
      {location && (atLocation || !current) && !purchase && <LocationContents key={location.ID} location={location} catalogue={kept} onPick={scan} />}
      {!current && !notice && !purchase && <p className="text-center text-slate-600">{t('scanning.start')}</p>}
      {history.length > 0 && (
        <section aria-label={t('scanning.recent')} className="text-sm text-slate-600">
          <h2 className="font-medium">{t('scanning.recent')}</h2>
          <ol data-testid="scan-history" className="flex flex-wrap gap-2">
            {history.map((h, i) => (
              <li key={`${i}-${h}`} className="rounded bg-slate-100 px-2 py-1">
                {h}
              </li>
            ))}
          </ol>
        </section>
      )}
    </div>
  )
}
