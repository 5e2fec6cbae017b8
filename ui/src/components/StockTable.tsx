import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query'
import { stockTableKeys, useDivision } from '../api/queries.ts'
import { useVirtualizer } from '@tanstack/react-virtual'
import { memo, useDeferredValue, useEffect, useMemo, useRef, useState, type ReactNode } from 'react'
import { liveListQuery } from '../api/db.ts'
import { oldestAsOf } from '../api/live.ts'
import { Link, useSearchParams } from 'react-router'
import { fetchStockPage, type Activity, type StockFilters, type StockItem, type StockSort } from '../api/stock.ts'
import { locale, t, tCount } from '../i18n/index.ts'
import { useIsWide } from '../lib/media.ts'
import { filtersFromParams, paramsWithFilters } from '../lib/stockFilters.ts'
import { AsOf } from './AsOf.tsx'
import { ExternalLink } from './ExternalLink.tsx'
import { PictureIcon } from './icons.tsx'
import { LoadingScreen } from './LoadingScreen.tsx'
import { InfoTip } from './Tooltip.tsx'
import { userMessage } from '../lib/errors.ts'

const ROW_WIDE = 64
const ROW_NARROW = 100
/** Columns of the wide layout: picture, code, description, group, stock, locations, links. */
const GRID = 'grid-cols-[56px_minmax(8rem,1fr)_minmax(12rem,2fr)_minmax(8rem,1fr)_8rem_minmax(12rem,2fr)_11rem]'

function fmt(n: number): string {
  return n.toLocaleString(locale(), { maximumFractionDigits: 3 })
}

/** The item's thumbnail, or a neutral placeholder when it has none or it cannot be loaded. */
function Thumbnail({ item }: { item: StockItem }) {
  const [failed, setFailed] = useState(false)
  if (!item.hasPicture || failed) {
    return (
      <span role="img" aria-label={t('stock.noPicture')} className="flex h-11 w-11 items-center justify-center rounded bg-slate-100 text-slate-400">
        <PictureIcon />
      </span>
    )
  }
  return (
    <img
      src={`/api/v1/pictures/${encodeURIComponent(item.id)}?thumbnail=true`}
      alt=""
      loading="lazy"
      width={44}
      height={44}
      onError={() => setFailed(true)}
      className="h-11 w-11 rounded bg-slate-100 object-cover"
    />
  )
}

/** The stock shown: the chosen warehouse's, with the item's total beside it; or the total. */
function StockFigure({ item }: { item: StockItem }) {
  const unit = <span className="text-xs font-normal text-slate-500">{item.unit}</span>
  if (item.warehouseStock === null) {
    return (
      <span data-testid="stock-figure">
        {fmt(item.total)} {unit}
      </span>
    )
  }
  return (
    <span className="flex flex-col items-end" data-testid="stock-figure">
      <span>
        {fmt(item.warehouseStock)} {unit}
      </span>
      <span className="text-xs font-normal text-slate-600" data-testid="stock-total">
        {t('stock.ofTotal', { total: fmt(item.total) })}
      </span>
    </span>
  )
}

function Locations({ item }: { item: StockItem }) {
  if (item.locations.length === 0) return <span className="text-slate-500">{t('stock.noLocations')}</span>
  return (
    <span className="flex flex-wrap gap-1">
      {item.locations.map((l) => (
        <span key={`${l.warehouse}/${l.location ?? ''}`} className="rounded bg-slate-100 px-1.5 py-0.5 text-xs whitespace-nowrap text-slate-700 tabular-nums">
          {l.warehouse}
          {l.location ? ` · ${l.location}` : ''}: <strong>{fmt(l.stock)}</strong>
        </span>
      ))}
    </span>
  )
}

/**
 * The code opens the item's page; `children` stand beside it (the narrow row's link to Exact's
 * item card). The code cell holds no other link: the wide row has that one in its links column.
 */
function CodeCell({ item, division, children }: { item: StockItem; division: number; children?: ReactNode }) {
  return (
    <span className="flex min-w-0 flex-col">
      <span className="inline-flex items-center gap-1">
        <Link
          to={`/item?division=${division}&id=${encodeURIComponent(item.id)}`}
          className="inline-flex items-center font-mono text-sm whitespace-nowrap text-sky-800 underline-offset-2 hover:underline focus:ring-2 focus:ring-sky-600 focus:outline-none max-md:min-h-11 max-md:min-w-11"
        >
          {item.code}
        </Link>
        {children}
      </span>
      {item.shopOrder !== null && <span className="text-xs text-amber-800">{t('stock.shopOrderMatch', { number: item.shopOrder })}</span>}
      {item.endDate && <span className="w-fit rounded bg-slate-200 px-1 text-xs text-slate-600">{t('stock.inactiveBadge')}</span>}
    </span>
  )
}

/** One item's row; `index` is its aria-rowindex (1-based, the header row included). */
interface RowProps {
  item: StockItem
  division: number
  index: number
}

const WideRow = memo(function WideRow({ item, division, index }: RowProps) {
  return (
    <div role="row" aria-rowindex={index} className={`grid ${GRID} h-full items-center gap-3 border-b border-slate-100 px-3 text-sm`}>
      <span role="cell">
        <Thumbnail item={item} />
      </span>
      <span role="cell" className="min-w-0">
        <CodeCell item={item} division={division} />
      </span>
      <span role="cell" className="truncate" title={item.description}>
        {item.description}
      </span>
      <span role="cell" className="truncate text-slate-600" title={item.itemGroup}>
        {item.itemGroup}
      </span>
      <span role="cell" className="text-right font-semibold tabular-nums">
        <StockFigure item={item} />
      </span>
      <span role="cell" className="max-h-14 overflow-hidden">
        <Locations item={item} />
      </span>
      <span role="cell" className="flex flex-col items-start">
        <ExternalLink page="itemCard" division={division} id={item.id} code={item.code} className="text-xs" />
        <ExternalLink page="inventoryTransactions" division={division} id={item.id} className="text-xs" />
      </span>
    </div>
  )
})

const NarrowRow = memo(function NarrowRow({ item, division, index }: RowProps) {
  return (
    <div role="row" aria-rowindex={index} className="flex h-full gap-3 border-b border-slate-100 px-3 py-2 text-sm">
      <span role="cell">
        <Thumbnail item={item} />
      </span>
      <span role="cell" className="flex min-w-0 flex-1 flex-col gap-1">
        <span className="flex items-start justify-between gap-2">
          <CodeCell item={item} division={division}>
            {/* its icon alone, widened to a 44 px target on handhelds: the row has no room for its label */}
            <ExternalLink
              page="itemCard"
              division={division}
              id={item.id}
              code={item.code}
              className="text-sm max-md:[&>a]:min-w-11 max-md:[&>a]:justify-center"
            >
              <span className="sr-only">{t('link.itemCard')}</span>
            </ExternalLink>
          </CodeCell>
          <strong className="text-right tabular-nums">
            <StockFigure item={item} />
          </strong>
        </span>
        <span className="truncate">{item.description}</span>
        <span className="max-h-10 overflow-hidden">
          <Locations item={item} />
        </span>
      </span>
    </div>
  )
})

/**
 * The choice an address names before its list has loaded (or when it cannot load): without this
 * option the select would show "All warehouses" while the table is filtered by one.
 */
function PendingChoice({ value, known }: { value: string; known: readonly { ID: string }[] | undefined }) {
  if (!value || known?.some((row) => row.ID === value)) return null
  return <option value={value}>{known ? t('stock.unknownChoice') : t('stock.loadingChoice')}</option>
}

function Filters({ filters, onChange }: { filters: StockFilters; onChange: (f: StockFilters) => void }) {
  const division = useDivision()
  const warehouses = useQuery({ ...liveListQuery('warehouses', division), staleTime: 10 * 60_000 })
  const groups = useQuery({ ...liveListQuery('itemGroups', division), staleTime: 10 * 60_000 })
  const select = 'rounded border border-slate-300 bg-white px-2 py-2 text-sm focus:border-sky-700 focus:ring-2 focus:ring-sky-600 focus:outline-none'
  return (
    <div className="flex flex-wrap items-end gap-3">
      <AsOf asOf={oldestAsOf(warehouses.data?.asOf, groups.data?.asOf)} compact className="w-full" />
      <label className="flex min-w-64 flex-[2] flex-col gap-1 text-sm font-medium">
        {t('stock.search')}
        <input
          type="search"
          value={filters.search}
          placeholder={t('stock.searchPlaceholder')}
          onChange={(e) => onChange({ ...filters, search: e.target.value })}
          className="rounded border border-slate-300 px-3 py-2 font-normal focus:border-sky-700 focus:ring-2 focus:ring-sky-600 focus:outline-none"
        />
      </label>
      <label className="flex min-w-40 flex-1 flex-col gap-1 text-sm font-medium">
        {t('stock.warehouse')}
        <select value={filters.warehouse} onChange={(e) => onChange({ ...filters, warehouse: e.target.value })} className={select}>
          <option value="">{t('stock.allWarehouses')}</option>
          <PendingChoice value={filters.warehouse} known={warehouses.data?.rows} />
          {warehouses.data?.rows.map((w) => (
            <option key={w.ID} value={w.ID}>
              {w.Code} {w.Description}
            </option>
          ))}
        </select>
      </label>
      <label className="flex min-w-40 flex-1 flex-col gap-1 text-sm font-medium">
        {t('stock.itemGroup')}
        <select value={filters.itemGroup} onChange={(e) => onChange({ ...filters, itemGroup: e.target.value })} className={select}>
          <option value="">{t('stock.allItemGroups')}</option>
          <PendingChoice value={filters.itemGroup} known={groups.data?.rows} />
          {groups.data?.rows.map((g) => (
            <option key={g.ID} value={g.ID}>
              {g.Code} {g.Description}
            </option>
          ))}
        </select>
      </label>
      <label className="flex min-w-32 flex-col gap-1 text-sm font-medium">
        {t('stock.activity')}
        <select value={filters.activity} onChange={(e) => onChange({ ...filters, activity: e.target.value as Activity })} className={select}>
          <option value="active">{t('stock.active')}</option>
          <option value="inactive">{t('stock.inactive')}</option>
          <option value="all">{t('stock.all')}</option>
        </select>
      </label>
      <span className="pb-2">
        <InfoTip label={t('stock.filters')} text={t('tooltip.filters')} />
      </span>
    </div>
  )
}

/**
 * The Table view: every item with its stock in all locations. About 500 items load first,
 * more as the list scrolls near its end; only the rows in view are in the page.
 */
/** A column the table can be ordered by: a click orders by it, a second click the other way. */
function SortHeader({ column, label, sort, onSort }: { column: 'code' | 'description'; label: string; sort: StockSort; onSort: (s: StockSort) => void }) {
  const ascending = sort === column
  const descending = sort === `-${column}`
  return (
    <span role="columnheader" aria-sort={ascending ? 'ascending' : descending ? 'descending' : 'none'}>
      <button type="button" className="inline-flex items-center gap-1 uppercase hover:text-slate-800" onClick={() => onSort(ascending ? `-${column}` : column)}>
        {label}
        <span aria-hidden="true">{ascending ? '▲' : descending ? '▼' : '↕'}</span>
      </button>
    </span>
  )
}

export function StockTable({ division }: { division: number }) {
  // the filters start from the address and are written back to it, so a reload keeps them
  const [searchParams, setSearchParams] = useSearchParams()
  const [filters, setFilters] = useState<StockFilters>(() => filtersFromParams(searchParams))
  useEffect(() => {
    setSearchParams(
      (prev) => {
        const next = paramsWithFilters(prev, filters)
        return next.toString() === prev.toString() ? prev : next
      },
      { replace: true },
    )
  }, [filters, setSearchParams])
  // typing stays quick; the query follows the settled text
  const deferred = useDeferredValue(filters)
  const wide = useIsWide()
  const query = useInfiniteQuery({
    queryKey: stockTableKeys.table(division, deferred),
    queryFn: ({ pageParam }) => fetchStockPage(deferred, pageParam),
    initialPageParam: 0,
    getNextPageParam: (last) => last.next ?? undefined,
    placeholderData: keepPreviousData,
    staleTime: 30_000,
  })
  const items = useMemo(() => query.data?.pages.flatMap((p) => p.items) ?? [], [query.data])
  const scrollRef = useRef<HTMLDivElement>(null)
  const rowHeight = wide ? ROW_WIDE : ROW_NARROW
  const virtualizer = useVirtualizer({
    count: items.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => rowHeight,
    overscan: 10,
  })
  useEffect(() => virtualizer.measure(), [rowHeight, virtualizer])

  const virtualRows = virtualizer.getVirtualItems()
  const lastIndex = virtualRows.length ? virtualRows[virtualRows.length - 1].index : -1
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = query
  useEffect(() => {
    if (hasNextPage && !isFetchingNextPage && lastIndex >= items.length - 30) void fetchNextPage()
  }, [lastIndex, items.length, hasNextPage, isFetchingNextPage, fetchNextPage])

  return (
    <section aria-labelledby="stock-title" className="flex min-h-0 flex-1 flex-col gap-3">
      <h2 id="stock-title" className="sr-only">
        {t('stock.title')}
      </h2>
      <Filters filters={filters} onChange={setFilters} />
      <div className="flex items-center justify-between text-sm text-slate-600">
        <p role="status" data-testid="stock-count">
          {tCount('stock.shown', items.length)}
          {query.isFetching && !query.isFetchingNextPage ? ' …' : ''}
        </p>
        {query.error && (
          <p role="alert" className="text-red-700">
            {userMessage(query.error)}
          </p>
        )}
      </div>
      {query.isPending ? (
        <LoadingScreen />
      ) : (
        <div className="flex min-h-0 flex-1 flex-col rounded-lg bg-white shadow">
          {/* the header row counts as row 1 of the table */}
          <div role="table" aria-label={t('stock.title')} aria-rowcount={items.length + (wide ? 1 : 0)} className="flex min-h-0 flex-1 flex-col">
            {wide && (
              <div role="rowgroup">
                <div
                  role="row"
                  aria-rowindex={1}
                  className={`grid ${GRID} gap-3 border-b border-slate-200 bg-slate-50 px-3 py-2 text-left text-xs font-medium text-slate-500 uppercase`}
                >
                  <span role="columnheader">{t('stock.picture')}</span>
                  <SortHeader column="code" label={t('stock.code')} sort={filters.sort} onSort={(sort) => setFilters({ ...filters, sort })} />
                  <SortHeader column="description" label={t('stock.description')} sort={filters.sort} onSort={(sort) => setFilters({ ...filters, sort })} />
                  <span role="columnheader">{t('stock.group')}</span>
                  <span role="columnheader" className="text-right">
                    {deferred.warehouse ? t('stock.inWarehouse') : t('stock.total')}
                  </span>
                  <span role="columnheader">{t('stock.locations')}</span>
                  <span role="columnheader">{t('stock.links')}</span>
                </div>
              </div>
            )}
            <div
              ref={scrollRef}
              role="rowgroup"
              tabIndex={0}
              data-testid="stock-rows"
              className="h-[60vh] min-h-64 overflow-auto focus:ring-2 focus:ring-sky-600 focus:outline-none md:h-[calc(100vh-20rem)]"
            >
              {items.length === 0 ? (
                <div role="row">
                  <p role="cell" className="p-6 text-center text-slate-500">
                    {t('stock.empty')}
                  </p>
                </div>
              ) : (
                <div className="relative w-full" style={{ height: virtualizer.getTotalSize() }}>
                  {virtualRows.map((v) => {
                    const item = items[v.index]
                    return (
                      <div key={item.id + v.index} className="absolute top-0 left-0 w-full" style={{ height: v.size, transform: `translateY(${v.start}px)` }}>
                        {wide ? (
                          <WideRow item={item} division={division} index={v.index + 2} />
                        ) : (
                          <NarrowRow item={item} division={division} index={v.index + 1} />
                        )}
                      </div>
                    )
                  })}
                </div>
              )}
            </div>
          </div>
          <div className="flex items-center justify-center border-t border-slate-100 p-2 text-sm">
            {hasNextPage ? (
              <button
                type="button"
                disabled={isFetchingNextPage}
                onClick={() => void fetchNextPage()}
                className="rounded border border-slate-300 px-3 py-1 hover:bg-slate-100 disabled:opacity-60"
              >
                {isFetchingNextPage ? t('stock.loadingMore') : t('stock.more')}
              </button>
            ) : (
              items.length > 0 && <span className="text-slate-500">{t('stock.allLoaded')}</span>
            )}
          </div>
        </div>
      )}
    </section>
  )
}
