import { useVirtualizer } from '@tanstack/react-virtual'
import { useLayoutEffect, useMemo, useRef } from 'react'
import { t } from '../../i18n/index.ts'
import { formatFullDay, formatMonth, formatWeekdayName } from '../../lib/dateTime.ts'
import { useIsWide } from '../../lib/media.ts'
import {
  axisDays,
  axisWidth,
  HEADER_UNITS,
  headerCells,
  isWeekendDay,
  xOf,
  type Axis,
  type DragMode,
  type HeaderCell,
  type HeaderUnit,
  type View,
} from './logic/timeline.ts'
import { fitLabel } from './logic/headerLabels.ts'
import { Bar, type BarOrder } from './Bar.tsx'

const ROW_PX = 48
/** The two header rows: the coarse one (24 px) and the columns' (32 px, a day's two lines). */
const HEADER_PX = 56
const DAY_MS = 86_400_000

/** The forms of a cell's label, longest first; the header shows the longest that fits. */
function cellLabels(unit: HeaderUnit, cell: HeaderCell): string[] {
  const date = cell.day * DAY_MS
  if (unit === 'weeks') {
    const week = Number(cell.key.slice(-2))
    return [t('planning.week', { week }), String(week)]
  }
  if (unit === 'months') {
    return [formatMonth(date, 'withYear'), formatMonth(date, 'short'), formatMonth(date, 'narrow')]
  }
  return [cell.key]
}

/** A day column's label: the weekday above the day of the month, each as wide as fits. */
function DayLabel({ cell }: { cell: HeaderCell }) {
  const date = new Date(cell.day * DAY_MS)
  const weekday = fitLabel(cell.width, [formatWeekdayName(cell.day * DAY_MS), formatWeekdayName(cell.day * DAY_MS, true)])
  return (
    <>
      <span className="block leading-4">{weekday}</span>
      <span className="block leading-4 font-semibold text-slate-800">{fitLabel(cell.width, [String(date.getUTCDate())])}</span>
    </>
  )
}

function HeaderRow({ axis, unit, lower }: { axis: Axis; unit: HeaderUnit; lower: boolean }) {
  const cells = useMemo(() => headerCells(axis, unit), [axis, unit])
  return (
    <div className={`relative border-b border-slate-200 ${lower ? 'h-8' : 'h-6'}`}>
      {cells.map((c) => (
        <div
          key={c.key}
          data-testid={unit === 'days' ? 'day-header' : undefined}
          style={{ left: c.left, width: c.width }}
          // the whole date on hover, whatever form fits the cell
          title={unit === 'days' ? formatFullDay(c.day * DAY_MS) : undefined}
          className={`absolute inset-y-0 overflow-hidden border-l border-slate-200 text-[11px] whitespace-nowrap text-slate-600 ${
            unit === 'days' ? 'text-center' : `px-1 ${lower ? 'leading-8' : 'leading-6'}`
          }`}
        >
          {unit === 'days' ? <DayLabel cell={c} /> : fitLabel(c.width, cellLabels(unit, c))}
        </div>
      ))}
    </div>
  )
}

/**
 * The shop orders as rows of a Gantt chart; only the rows in view are in the page, so ten
 * thousand orders scroll like ten.
 */
export function Timeline({
  orders,
  axis,
  view,
  today,
  onOpen,
  onDrag,
}: {
  orders: BarOrder[]
  axis: Axis
  view: View
  today: number
  onOpen: (id: string) => void
  onDrag: (id: string, mode: DragMode, steps: number) => void
}) {
  const scroller = useRef<HTMLDivElement>(null)
  const wide = useIsWide()
  const labelPx = wide ? 224 : 88
  const width = axisWidth(axis)
  const rows = useVirtualizer({
    count: orders.length,
    getScrollElement: () => scroller.current,
    estimateSize: () => ROW_PX,
    overscan: 8,
  })
  const [upper, lower] = HEADER_UNITS[view]
  const shaded = useMemo(() => (axis.skipWeekends || view === 'months' ? [] : axisDays(axis).filter(isWeekendDay)), [axis, view])

  // Opens where the work is: the earliest order's start, at most two weeks before today. A new
  // scale or view opens there again; otherwise the same days stay in view when the axis grows.
  const firstStart = useRef<number | undefined>(undefined)
  firstStart.current = orders[0]?.startDay
  const shown = useRef<{ start: number; px: number; skip: boolean; view: View } | null>(null)
  useLayoutEffect(() => {
    const el = scroller.current
    if (!el) return
    const before = shown.current
    if (before && before.px === axis.pxPerDay && before.skip === axis.skipWeekends && before.view === view) {
      if (before.start !== axis.start) el.scrollLeft += xOf(axis, before.start)
    } else {
      const anchor = Math.max(firstStart.current ?? today, today - 14)
      el.scrollLeft = Math.max(0, xOf(axis, anchor) - axis.pxPerDay * (view === 'days' ? 1 : 7))
    }
    shown.current = { start: axis.start, px: axis.pxPerDay, skip: axis.skipWeekends, view }
  }, [axis, today, view])

  const todayX = today >= axis.start && today < axis.end ? labelPx + xOf(axis, today) : null
  return (
    <div
      ref={scroller}
      data-testid="planning-timeline"
      className="relative min-h-80 overflow-auto rounded-lg border border-slate-200 bg-white"
      // a fixed height (not flex growth) keeps the rows virtual: the list scrolls inside it
      style={{ height: 'calc(100dvh - 16rem)' }}
    >
      <div style={{ width: labelPx + width, height: rows.getTotalSize() + HEADER_PX }} className="relative">
        <div className="sticky top-0 z-30 flex bg-white" style={{ width: labelPx + width }}>
          <div
            className="sticky left-0 z-10 flex shrink-0 items-end gap-1 border-r border-b border-slate-200 bg-white px-2 pb-1 text-xs font-semibold text-slate-700"
            style={{ width: labelPx, height: HEADER_PX }}
          >
            <span className="flex-1">{t('planning.column.order')}</span>
            <button
              type="button"
              onClick={() => {
                const el = scroller.current
                if (el) el.scrollLeft = Math.max(0, xOf(axis, today) - axis.pxPerDay * (view === 'days' ? 1 : 7))
              }}
              className="min-h-8 rounded border border-slate-300 px-2 font-normal hover:bg-slate-100 focus:ring-2 focus:ring-sky-600 focus:outline-none"
            >
              {t('planning.today')}
            </button>
          </div>
          <div className="relative shrink-0" style={{ width }}>
            <HeaderRow axis={axis} unit={upper} lower={false} />
            <HeaderRow axis={axis} unit={lower} lower />
          </div>
        </div>
        {shaded.map((d) => (
          <div
            key={d}
            aria-hidden="true"
            className="absolute bottom-0 bg-slate-100"
            style={{ top: HEADER_PX, left: labelPx + xOf(axis, d), width: axis.pxPerDay }}
          />
        ))}
        {todayX !== null && <div aria-hidden="true" className="absolute bottom-0 z-10 w-0.5 bg-red-500/70" style={{ top: HEADER_PX, left: todayX }} />}
        {/* the rows are a table for assistive technology: the order heads its row, the bar is its cell */}
        <div role="table" aria-label={t('planning.rowsLabel')} aria-rowcount={orders.length}>
          <div role="rowgroup" data-testid="planning-rows">
            {rows.getVirtualItems().map((v) => {
              const o = orders[v.index]
              return (
                <div
                  key={o.id}
                  role="row"
                  aria-rowindex={v.index + 1}
                  className="absolute left-0 flex border-b border-slate-100"
                  style={{ top: HEADER_PX + v.start, height: ROW_PX, width: labelPx + width }}
                >
                  <div role="rowheader" className="sticky left-0 z-20 h-full shrink-0" style={{ width: labelPx }}>
                    <button
                      type="button"
                      onClick={() => onOpen(o.id)}
                      className="flex h-full w-full flex-col justify-center overflow-hidden border-r border-slate-200 bg-white px-2 text-left hover:bg-sky-50 focus:ring-2 focus:ring-sky-600 focus:outline-none focus:ring-inset"
                    >
                      <span className="flex items-center gap-1">
                        <span className="font-mono text-sm font-semibold text-sky-900">{o.number}</span>
                        {o.late && (
                          <span data-testid="row-late" className="rounded bg-red-700 px-1 text-[10px] leading-4 font-semibold text-white">
                            {t('planning.late')}
                          </span>
                        )}
                      </span>
                      {wide && <span className="truncate text-xs text-slate-600">{o.label}</span>}
                    </button>
                  </div>
                  <div role="cell" className="relative h-full" style={{ width }}>
                    <Bar order={o} axis={axis} onOpen={onOpen} onDrag={onDrag} />
                  </div>
                </div>
              )
            })}
          </div>
        </div>
      </div>
    </div>
  )
}
