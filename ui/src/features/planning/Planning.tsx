import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useDeferredValue, useMemo, useState } from 'react'
import type { Session } from '../../api/auth.ts'
import { liveListQuery } from '../../api/db.ts'
import { oldestAsOf } from '../../api/live.ts'
import { updateOrganizationPreferences } from '../../api/org.ts'
import {
  fetchItemIdsInGroup,
  fetchOpenShopOrders,
  fetchProjects,
  fetchPlanningMaterials,
  fetchShopOrder,
  type ShopOrder,
  type ShopOrderChange,
  type ShopOrderDetails,
} from './api.ts'
import { planningKeys, queryKeys, useSession } from '../../api/queries.ts'
import { useBannerPlace } from '../../components/AppShell.tsx'
import { AsOf } from '../../components/AsOf.tsx'
import { LoadingScreen } from '../../components/LoadingScreen.tsx'
import { locale, t, tCount } from '../../i18n/index.ts'
import { useIsWide } from '../../lib/media.ts'
import { readJson, writeJson } from '../../lib/storage.ts'
import { availability, type MaterialNeeds } from './logic/availability.ts'
import { activeFilterCount, filterOrders, NO_FILTERS, type PlanningFilters } from './logic/filters.ts'
import { moveChange, moveDays, projectMoves, type DateChange, type ProjectMove } from './logic/projectShift.ts'
import { isLate, lateCount } from './logic/late.ts'
import { datedRows } from './logic/rows.ts'
import { moveStands } from './logic/undo.ts'
import { dayIso, draggedDates, makeAxis, SCALES, today as todayOf, VIEWS, type DragMode, type View } from './logic/timeline.ts'
import type { BarOrder } from './Bar.tsx'
import { Filters, type FilterLists } from './Filters.tsx'
import { Legend } from './Legend.tsx'
import { MoveToast } from './MoveToast.tsx'
import { ProjectShiftDialog } from './ProjectShiftDialog.tsx'
import { SettingsCog } from './SettingsCog.tsx'
import { ShopOrderModal, type SelectionCodeOption } from './ShopOrderModal.tsx'
import { Timeline } from './Timeline.tsx'
import { useLastMove } from './useLastMove.ts'
import { useShopOrderWrites } from './useShopOrderWrites.ts'
import { WriteList } from './WriteList.tsx'
import { LIVE_LIST_RETRY } from '../../api/queryClient.ts'
import { userMessage } from '../../lib/errors.ts'

/** This browser's view and scale (weekends are the organization's, kept on the server). */
const DISPLAY_KEY = 'esm.planning.display'

function readDisplay(): { view: View; scale: number } {
  const d = readJson(localStorage, DISPLAY_KEY) as { view?: unknown; scale?: unknown } | null
  const view = VIEWS.includes(d?.view as View) ? (d?.view as View) : 'days'
  const scale = (SCALES as readonly number[]).includes(Number(d?.scale)) ? Number(d?.scale) : 1
  return { view, scale }
}

/** Before the needs are in: every order without dots. */
const NO_NEEDS: MaterialNeeds = { orders: new Map(), line: [], item: [], quantity: [], free: [], incoming: [] }

function Screen({ session }: { session: Session }) {
  const queryClient = useQueryClient()
  const division = session.division
  const prefs = session.organizationDetails.preferences
  const savedWeekendsHidden = prefs.weekends_disabled === true
  const [display, setDisplay] = useState(readDisplay)
  const [filters, setFilters] = useState<PlanningFilters>(NO_FILTERS)
  const deferred = useDeferredValue(filters)
  const [openId, setOpenId] = useState<string | null>(null)
  // The chart reads only what its bars need; an order's window reads the order in full, each time
  // it opens (not kept: its fields are the form's first values).
  const details = useQuery({ queryKey: planningKeys.order(openId ?? ''), queryFn: () => fetchShopOrder(openId ?? ''), enabled: !!openId, gcTime: 0 })
  const { overrides, writes, write, dismiss } = useShopOrderWrites()
  const lastMove = useLastMove(write)
  // on a wide screen the banners sit beside the title, where coming and going moves nothing
  const bannerPlace = useBannerPlace()
  const wide = useIsWide()
  // Not remembered: moving a whole project by mistake on a later visit costs more than a tick.
  const [shiftProject, setShiftProject] = useState(false)
  const [proposal, setProposal] = useState<{ moves: ProjectMove<ShopOrder>[]; days: number } | null>(null)

  const orders = useQuery({ queryKey: planningKeys.list('orders', division), queryFn: fetchOpenShopOrders })
  // After the orders: read beside their pages, the needs' answer (megabytes of ids) took the cores
  // the first view needs, and the dots mean nothing before the bars are there.
  const materials = useQuery({ queryKey: planningKeys.list('materials', division), queryFn: fetchPlanningMaterials, enabled: orders.isSuccess })
  const warehouses = useQuery({ ...liveListQuery('warehouses', division), ...LIVE_LIST_RETRY })
  const selectionCodes = useQuery({ ...liveListQuery('selectionCodes', division), ...LIVE_LIST_RETRY })
  const itemGroups = useQuery({ ...liveListQuery('itemGroups', division), ...LIVE_LIST_RETRY })
  const projects = useQuery({ queryKey: planningKeys.list('projects', division), queryFn: fetchProjects, retry: false })
  const inGroup = useQuery({
    queryKey: planningKeys.itemGroup(division, deferred.itemGroup),
    queryFn: () => fetchItemIdsInGroup(deferred.itemGroup),
    enabled: !!deferred.itemGroup,
  })

  const weekends = useMutation({
    // other preferences of the organization are carried over unchanged
    mutationFn: (hidden: boolean) => updateOrganizationPreferences(session.organizationDetails.uuid, { ...prefs, weekends_disabled: hidden }),
    onSuccess: (details) => queryClient.setQueryData<Session>(queryKeys.session, (s) => (s ? { ...s, organizationDetails: details } : s)),
  })

  // While the choice is being saved it already applies. It is held in state set in the click's
  // own handler: the mutation's state arrives a tick later, and a controlled checkbox would flip
  // back in between.
  const [choosingWeekends, setChoosingWeekends] = useState<boolean | null>(null)
  const chooseWeekends = (hidden: boolean) => {
    setChoosingWeekends(hidden)
    weekends.mutate(hidden, { onSettled: () => setChoosingWeekends(null) })
  }
  const weekendsHidden = choosingWeekends ?? savedWeekendsHidden
  const merged = useMemo(() => (orders.data ?? []).map((o) => (overrides[o.ID] ? { ...o, ...overrides[o.ID] } : o)) as ShopOrder[], [orders.data, overrides])
  const dated = useMemo(
    () => datedRows(orders.data ?? [], (o) => (overrides[o.ID] ? ({ ...o, ...overrides[o.ID] } as ShopOrder) : o)),
    [orders.data, overrides],
  )
  const avail = useMemo(
    () =>
      // the server writes ids in lower case
      availability(
        dated.map((d) => ({ ID: d.order.ID.toLowerCase(), startDay: d.startDay })),
        materials.data ?? NO_NEEDS,
      ),
    [dated, materials.data],
  )
  const now = todayOf()
  const pendingIds = useMemo(() => new Set(writes.filter((w) => w.status === 'sending' || w.status === 'pending').map((w) => w.orderId)), [writes])
  const shown = useMemo(() => {
    const pass = new Set(
      filterOrders(
        dated.map((d) => d.order),
        deferred,
        inGroup.data,
      ).map((o) => o.ID),
    )
    return dated
      .filter((d) => pass.has(d.order.ID))
      .map((d): BarOrder => ({
        id: d.order.ID,
        number: d.order.ShopOrderNumber,
        label: `${d.order.ItemCode ?? ''} ${d.order.ItemDescription ?? d.order.Description ?? ''}`.trim(),
        startDay: d.startDay,
        endDay: d.endDay,
        status: Number(d.order.Status),
        onHold: !!d.order.IsOnHold,
        late: isLate(d.endDay, Number(d.order.Status), now),
        availability: avail.orders.get(d.order.ID.toLowerCase()) ?? 'none',
        pending: pendingIds.has(d.order.ID),
      }))
  }, [dated, deferred, inGroup.data, avail, pendingIds, now])
  const late = useMemo(() => lateCount(shown, now), [shown, now])

  const axis = useMemo(() => {
    // rows keep their order while a move settles, so the first row need not start first
    const first = shown.reduce((m, o) => Math.min(m, o.startDay), now - 7)
    const last = shown.reduce((m, o) => Math.max(m, o.endDay), now + 28)
    return makeAxis(first, last + 14, display.view, display.scale, weekendsHidden)
  }, [shown, now, display, weekendsHidden])

  const setView = (view: View) => {
    const next = { ...display, view }
    setDisplay(next)
    writeJson(localStorage, DISPLAY_KEY, next)
  }
  const setScale = (scale: number) => {
    const next = { ...display, scale }
    setDisplay(next)
    writeJson(localStorage, DISPLAY_KEY, next)
  }
  /** New dates for an order; with "shift the whole project" the other orders first wait for a yes. */
  const move = (order: ShopOrder, change: DateChange) => {
    if (shiftProject && order.Project) {
      const moves = projectMoves(merged, order, change, weekendsHidden)
      if (moves.length > 1) return setProposal({ moves, days: moveDays(order, change, weekendsHidden) })
    }
    lastMove.move([{ order, change }])
  }
  const shiftAll = (moves: ProjectMove<ShopOrder>[]) => {
    setProposal(null)
    const project = moves[0].order.ProjectDescription || moves[0].order.Project
    lastMove.move(
      moves.map((m) => ({ order: m.order, change: moveChange(m) })).filter((m) => Object.keys(m.change).length > 0),
      project,
    )
  }
  const onDrag = (id: string, mode: DragMode, steps: number) => {
    const d = dated.find((x) => x.order.ID === id)
    if (!d) return
    const next = draggedDates(mode, d.startDay, d.endDay, steps, weekendsHidden)
    const change: ShopOrderChange = {}
    if (next.startDay !== d.startDay) change.PlannedStartDate = dayIso(next.startDay)
    if (next.endDay !== d.endDay) change.PlannedDate = dayIso(next.endDay)
    if (Object.keys(change).length > 0) move(d.order, change)
  }

  // the chart shows as soon as the orders are in; the material dots follow with the server's answer
  // of the needs and the stock
  if (orders.isPending) return <LoadingScreen />
  const checkingMaterials = materials.isPending
  const loadError = orders.error ?? materials.error ?? details.error
  const lists: FilterLists = {
    warehouses: warehouses.data?.rows,
    selectionCodes: selectionCodes.data?.rows,
    itemGroups: itemGroups.data?.rows,
    projects: projects.data,
    failed: new Set(
      (
        [
          ['warehouses', warehouses.error],
          ['selectionCodes', selectionCodes.error],
          ['itemGroups', itemGroups.error],
          ['projects', projects.error],
        ] as const
      )
        .filter(([, e]) => e)
        .map(([n]) => n),
    ),
  }
  const chartOrder = openId ? dated.find((d) => d.order.ID === openId)?.order : undefined
  // what the chart knows last (a move or a change on its way) over what the local copy has
  const open = chartOrder && details.data ? ({ ...details.data, ...overrides[chartOrder.ID] } as ShopOrderDetails) : undefined
  const undated = merged.length - dated.length
  const moved = lastMove.last
  const toast = moved && (
    <MoveToast
      move={moved}
      writes={writes}
      stands={moveStands(moved, (id) => merged.find((o) => o.ID === id))}
      onUndo={lastMove.undo}
      onClose={lastMove.dismiss}
    />
  )

  return (
    <div className="mx-auto flex w-full max-w-[1800px] flex-1 flex-col gap-3 p-3 md:p-6">
      <div className="flex flex-wrap items-start justify-between gap-3 md:flex-nowrap">
        <div className="shrink-0">
          <h1 className="text-2xl font-bold text-sky-900">{t('planning.title')}</h1>
          <p className="text-sm text-slate-600" data-testid="planning-count">
            {tCount('planning.count', shown.length)}
            {activeFilterCount(filters) > 0 && ` ${t('planning.ofTotal', { total: dated.length.toLocaleString(locale()) })}`}
            {undated > 0 && ` · ${tCount('planning.undated', undated)}`}
            {checkingMaterials && (
              <span role="status" data-testid="planning-checking-materials">
                {' · '}
                {t('planning.checkingMaterials')}
              </span>
            )}
          </p>
          {/* its line stays when none is late: moving the last late order must not move the chart */}
          <p data-testid="planning-late" className="min-h-5 text-sm font-semibold text-red-700">
            {late > 0 && tCount('planning.lateCount', late)}
          </p>
        </div>
        {/* What comes and goes (the banners, the copy's age, lists that could not be read) lies over
            the room beside the title: pushing the chart down, it moved the bars under the pointer. */}
        <div className="order-last w-full md:relative md:order-none md:w-auto md:min-w-0 md:flex-1 md:self-stretch" data-testid="planning-notices">
          <div className="flex flex-col gap-1 md:absolute md:inset-x-0 md:top-0 md:z-20">
            <div ref={wide ? bannerPlace : undefined} className="flex flex-col overflow-hidden rounded-lg shadow-sm empty:hidden" />
            <AsOf asOf={oldestAsOf(warehouses.data?.asOf, selectionCodes.data?.asOf, itemGroups.data?.asOf)} compact />
            {lists.failed.size > 0 && (
              <p role="alert" className="text-sm text-amber-800">
                {t('planning.filter.listsFailed')}
              </p>
            )}
            {inGroup.error && (
              <p role="alert" className="text-sm text-red-700">
                {userMessage(inGroup.error)}
              </p>
            )}
          </div>
        </div>
        <SettingsCog
          weekendsHidden={weekendsHidden}
          savingWeekends={weekends.isPending}
          weekendsError={userMessage(weekends.error) || null}
          onWeekends={chooseWeekends}
          scale={display.scale}
          onScale={setScale}
        />
      </div>
      <Filters filters={filters} onFilters={setFilters} lists={lists} view={display.view} onView={setView} />
      <div className="flex flex-wrap items-center justify-between gap-2">
        <Legend />
        <label className="inline-flex min-h-11 items-center gap-2 text-sm">
          <input type="checkbox" className="h-5 w-5" checked={shiftProject} onChange={(e) => setShiftProject(e.target.checked)} />
          {t('planning.shift.option')}
        </label>
      </div>
      {loadError ? (
        <p role="alert" className="rounded bg-red-50 p-4 text-red-800">
          {loadError.message}
        </p>
      ) : dated.length === 0 ? (
        <p role="status" className="rounded bg-amber-50 p-4 text-amber-900">
          {t('planning.empty')}
        </p>
      ) : shown.length === 0 ? (
        <p role="status" className="rounded bg-slate-100 p-4 text-slate-700">
          {t('planning.noMatch')}
        </p>
      ) : (
        <Timeline orders={shown} axis={axis} view={display.view} today={now} onOpen={setOpenId} onDrag={onDrag} />
      )}
      {/* under the chart, so a write coming or going does not move it; the last move's state is in its toast */}
      <WriteList writes={writes} onDismiss={dismiss} />
      {!open && toast}
      {open && (
        <ShopOrderModal
          key={open.ID}
          order={open}
          division={division}
          availability={avail.orders.get(open.ID.toLowerCase()) ?? 'none'}
          lineAvailability={avail.line}
          selectionCodes={selectionCodes.data?.rows as SelectionCodeOption[] | undefined}
          writes={writes}
          onWrite={(change, shown) => void write(open, change, shown)}
          onMove={(change) => move(open, change)}
          shiftProject={shiftProject}
          onShiftProject={setShiftProject}
          onDismissWrite={dismiss}
          onClose={() => setOpenId(null)}
          toast={toast}
        />
      )}
      {proposal && (
        <ProjectShiftDialog
          moves={proposal.moves}
          days={proposal.days}
          skipWeekends={weekendsHidden}
          onNo={() => setProposal(null)}
          onYes={() => shiftAll(proposal.moves)}
        />
      )}
    </div>
  )
}

/** Planning: open shop orders on a timeline, to move, resize and open. */
export default function Planning() {
  const { data: session } = useSession()
  if (!session) return <LoadingScreen />
  return <Screen session={session} />
}
