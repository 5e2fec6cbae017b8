// The grouped purchase lines, virtualised: a large organization has thousands of open lines, and
// rendering each (over 100,000 elements at scale medium) took the screen seconds to show. Only
// the rows near the window are in the page; the page itself scrolls, as it did before.
import { useCallback, useLayoutEffect, useMemo, useRef, useState } from 'react'
import { useWindowVirtualizer } from '@tanstack/react-virtual'
import { ExternalLink } from '../../components/ExternalLink.tsx'
import { t } from '../../i18n/index.ts'
import { formatDay } from '../../lib/dateTime.ts'
import type { GroupBy, PurchaseGroup, PurchaseLine } from '../../lib/purchases.ts'
import { PurchaseLineRow } from './PurchaseLineRow.tsx'

/** A row with its key for the virtualiser, made once with the rows. */
type ListRow = { key: string } & ({ kind: 'group'; group: PurchaseGroup } | { kind: 'line'; line: PurchaseLine; last: boolean })

/** A group's heading, then its lines, as one flat list of rows. */
export function flatRows(groups: readonly PurchaseGroup[]): ListRow[] {
  const rows: ListRow[] = []
  for (const group of groups) {
    rows.push({ key: `g:${group.key}`, kind: 'group', group })
    group.lines.forEach((line, i) => rows.push({ key: `l:${line.id}`, kind: 'line', line, last: i === group.lines.length - 1 }))
  }
  return rows
}

/** Heights before a row is measured: a heading, a line on a wide screen. */
const GROUP_HEIGHT = 45
const LINE_HEIGHT = 66

function GroupHeading({ group, groupBy, division }: { group: PurchaseGroup; groupBy: GroupBy; division: number }) {
  return (
    <h2
      data-testid="purchase-group"
      className="mt-4 flex flex-wrap items-center gap-2 rounded-t border border-slate-200 bg-slate-50 px-3 py-2 text-sm font-semibold"
    >
      {groupBy === 'date' ? (
        <span>{group.key ? formatDay(group.key) : t('purchases.noDate')}</span>
      ) : groupBy === 'item' ? (
        <ExternalLink page="itemCard" division={division} id={group.key} code={group.code} className="font-mono">
          {group.code}
        </ExternalLink>
      ) : (
        <span className="font-mono">{group.code}</span>
      )}
      <span>{group.name}</span>
      <span className="font-normal text-slate-500">({group.lines.length})</span>
      {group.late > 0 && <span className="rounded bg-red-100 px-1.5 text-xs text-red-800">{t('purchases.groupLate', { count: group.late })}</span>}
    </h2>
  )
}

export function PurchaseList({
  groups,
  groupBy,
  division,
  today,
  lineCount,
}: {
  groups: readonly PurchaseGroup[]
  groupBy: GroupBy
  division: number
  today: string
  lineCount: number
}) {
  const rows = useMemo(() => flatRows(groups), [groups])
  const listRef = useRef<HTMLDivElement>(null)
  // where the list starts on the page, so the window's scroll maps onto its rows
  const [offset, setOffset] = useState(0)
  useLayoutEffect(() => {
    const el = listRef.current
    if (el) setOffset(el.getBoundingClientRect().top + window.scrollY)
  }, [groups])
  // The same functions while the rows stay: the virtualiser works out every row's place again
  // whenever `getItemKey` is a new function, and each row it measures re-renders the list.
  const estimateSize = useCallback((i: number) => (rows[i].kind === 'group' ? GROUP_HEIGHT : LINE_HEIGHT), [rows])
  const getItemKey = useCallback((i: number) => rows[i].key, [rows])
  const virtualizer = useWindowVirtualizer({ count: rows.length, estimateSize, overscan: 8, scrollMargin: offset, getItemKey })
  return (
    <div
      ref={listRef}
      role="list"
      aria-label={t('purchases.title')}
      data-testid="purchase-list"
      data-lines={lineCount}
      data-groups={groups.length}
      className="relative w-full"
      style={{ height: virtualizer.getTotalSize() }}
    >
      {virtualizer.getVirtualItems().map((v) => {
        const row = rows[v.index]
        return (
          <div
            key={v.key}
            role="listitem"
            data-index={v.index}
            ref={virtualizer.measureElement}
            className="absolute top-0 left-0 w-full"
            style={{ transform: `translateY(${v.start - virtualizer.options.scrollMargin}px)` }}
          >
            {row.kind === 'group' ? (
              <GroupHeading group={row.group} groupBy={groupBy} division={division} />
            ) : (
              <div className={`border-x border-slate-200 bg-white ${row.last ? 'rounded-b border-b' : ''}`}>
                <PurchaseLineRow line={row.line} division={division} today={today} groupBy={groupBy} />
              </div>
            )}
          </div>
        )
      })}
    </div>
  )
}
