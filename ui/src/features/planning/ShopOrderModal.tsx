import { useQuery } from '@tanstack/react-query'
import { planningKeys } from '../../api/queries.ts'
import { useId, useState, type FormEvent, type ReactNode } from 'react'
import { fetchOrderPlans, fetchOrderSteps, type ShopOrderChange, type ShopOrderDetails, type ShownChange } from './api.ts'
import { ExternalLink } from '../../components/ExternalLink.tsx'
import { Loading } from '../../components/Loading.tsx'
import { InfoTip } from '../../components/Tooltip.tsx'
import { Dialog } from '../../components/ui/Dialog.tsx'
import { locale, t } from '../../i18n/index.ts'
import { DAY_MS, formatDay } from '../../lib/dateTime.ts'
import { useIsWide } from '../../lib/media.ts'
import type { Availability } from './logic/availability.ts'
import { dayIso, toDay } from './logic/timeline.ts'
import { materialPlanStatusName, shopOrderStatusName } from '../../lib/status.ts'
import { AVAILABILITY_DOT, AVAILABILITY_LABEL } from './bars.ts'
import { SalesLines } from './SalesLines.tsx'
import { ShopOrderLabels } from './ShopOrderLabels.tsx'
import { WriteList } from './WriteList.tsx'
import type { WriteRecord } from './useShopOrderWrites.ts'
import { userMessage } from '../../lib/errors.ts'

const num = (n: unknown) => Number(n ?? 0).toLocaleString(locale(), { maximumFractionDigits: 3 })
/** A date as the date fields take it (`YYYY-MM-DD`). */
const date = (v: unknown) => {
  const d = toDay(v)
  return d === null ? '–' : dayIso(d)
}
/** A date as it is read, in the user's language. */
const shownDate = (v: unknown) => {
  const d = toDay(v)
  return d === null ? '–' : formatDay(d * DAY_MS)
}

function Row({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="flex flex-col sm:flex-row sm:gap-2">
      <dt className="text-xs font-medium text-slate-500 sm:w-36 sm:shrink-0 sm:text-sm">{label}</dt>
      <dd className="min-w-0 text-sm text-slate-900">{children}</dd>
    </div>
  )
}

function Toggle({ label, checked, onChange }: { label: string; checked: boolean; onChange: (on: boolean) => void }) {
  return (
    <label className="flex min-h-11 items-center gap-3 rounded border border-slate-200 px-3 text-sm">
      <input type="checkbox" className="h-5 w-5" checked={checked} onChange={(e) => onChange(e.target.checked)} />
      {label}
    </label>
  )
}

/** A selection code to choose from (Exact's logistics/SelectionCodes). */
export interface SelectionCodeOption {
  ID: string
  Code: string
  Description?: string | null
}

/** A whole number of days (0 or more), or null. */
function leadDaysOf(typed: string): number | null {
  const v = typed.trim()
  return /^\d{1,5}$/.test(v) ? Number(v) : null
}

/** A shop order: its details, material plans with their state, routing steps, and its planning to change. */
export function ShopOrderModal({
  order,
  division,
  availability,
  lineAvailability,
  selectionCodes,
  writes,
  onWrite,
  onMove,
  shiftProject,
  onShiftProject,
  onDismissWrite,
  onClose,
  toast,
}: {
  order: ShopOrderDetails
  division: number
  availability: Availability
  /** A material line's state by its order (lower case) and line number. */
  lineAvailability: (order: string, lineNumber: number) => Availability | undefined
  /** The selection codes to choose from; undefined while unknown (the list could not be read). */
  selectionCodes: SelectionCodeOption[] | undefined
  writes: WriteRecord[]
  onWrite: (change: ShopOrderChange, shown?: ShownChange) => void
  /** New dates: with the whole project when `shiftProject` (Planning asks first). */
  onMove: (change: Pick<ShopOrderChange, 'PlannedStartDate' | 'PlannedDate'>) => void
  shiftProject: boolean
  onShiftProject: (on: boolean) => void
  onDismissWrite: (key: number) => void
  onClose: () => void
  /** The last move's toast: the page's is behind this window while it is open. */
  toast?: ReactNode
}) {
  const wide = useIsWide()
  const titleId = useId()
  const plans = useQuery({ queryKey: planningKeys.plans(order.ID), queryFn: () => fetchOrderPlans(order.ID) })
  // the dots' answer names orders in lower case
  const orderKey = order.ID.toLowerCase()
  const steps = useQuery({ queryKey: planningKeys.steps(order.ID), queryFn: () => fetchOrderSteps(order.ID) })
  const [start, setStart] = useState(date(order.PlannedStartDate))
  const [end, setEnd] = useState(date(order.PlannedDate))
  const [notes, setNotes] = useState(order.Notes ?? '')
  const [dateError, setDateError] = useState<string | null>(null)
  const [selectionCode, setSelectionCode] = useState((order.SelectionCode ?? '').toLowerCase())
  const [yourRef, setYourRef] = useState(order.YourRef ?? '')
  const [leadDays, setLeadDays] = useState(order.ProductionLeadDays === null || order.ProductionLeadDays === undefined ? '' : String(order.ProductionLeadDays))
  const [detailsError, setDetailsError] = useState<string | null>(null)

  const saveDates = (e: FormEvent) => {
    e.preventDefault()
    if (!/^\d{4}-\d{2}-\d{2}$/.test(start) || !/^\d{4}-\d{2}-\d{2}$/.test(end)) return setDateError(t('planning.modal.dateMissing'))
    if (end < start) return setDateError(t('planning.modal.dateOrder'))
    setDateError(null)
    const change: ShopOrderChange = {}
    if (start !== date(order.PlannedStartDate)) change.PlannedStartDate = start
    if (end !== date(order.PlannedDate)) change.PlannedDate = end
    if (Object.keys(change).length === 0) return setDateError(t('planning.modal.noChange'))
    onMove(change)
  }
  const saveDetails = (e: FormEvent) => {
    e.preventDefault()
    const change: ShopOrderChange = {}
    const shown: ShownChange = {}
    if (selectionCode !== (order.SelectionCode ?? '').toLowerCase()) {
      change.SelectionCode = selectionCode || null
      shown.SelectionCodeCode = selectionCodes?.find((c) => c.ID.toLowerCase() === selectionCode)?.Code ?? null
    }
    if (yourRef.trim() !== (order.YourRef ?? '')) change.YourRef = yourRef.trim()
    const days = leadDaysOf(leadDays)
    if (leadDays.trim() !== '' && days === null) return setDetailsError(t('planning.modal.leadDaysInvalid'))
    if (days !== null && days !== order.ProductionLeadDays) change.ProductionLeadDays = days
    if (Object.keys(change).length === 0) return setDetailsError(t('planning.modal.detailsUnchanged'))
    setDetailsError(null)
    onWrite(change, shown)
  }
  // the order's own code stays choosable even when the list could not be read
  const codeChoices: SelectionCodeOption[] = [...(selectionCodes ?? [])]
  if (order.SelectionCode && !codeChoices.some((c) => c.ID.toLowerCase() === order.SelectionCode?.toLowerCase()))
    codeChoices.unshift({ ID: order.SelectionCode, Code: order.SelectionCodeCode ?? order.SelectionCode })
  const mine = writes.filter((w) => w.orderId === order.ID)
  const section = 'flex flex-col gap-2 border-t border-slate-200 pt-3'

  return (
    <Dialog
      labelledBy={titleId}
      onClose={onClose}
      className="m-0 h-full max-h-none w-full max-w-none bg-white p-0 backdrop:bg-black/40 md:m-auto md:h-auto md:max-h-[90vh] md:max-w-3xl md:rounded-lg md:shadow-xl"
    >
      <div className="flex flex-col gap-3 p-4 md:p-6" data-testid="shop-order-modal">
        <div className="flex items-start justify-between gap-3">
          <div className="min-w-0">
            <h2 id={titleId} className="flex items-center gap-2 text-xl font-bold text-sky-900">
              {t('planning.modal.title', { number: order.ShopOrderNumber })}
              {/* beside the title, where it covers neither the status nor the item below it (a
                  handheld has no room beside it) */}
              <InfoTip label={t('planning.modal.help')} text={t('tooltip.shopOrderModal')} side={wide ? 'right' : 'bottom'} />
            </h2>
            <p className="truncate text-sm text-slate-600">
              {order.ItemCode} · {order.ItemDescription ?? order.Description}
            </p>
          </div>
          <button
            type="button"
            onClick={onClose}
            className="min-h-11 rounded border border-slate-300 px-4 hover:bg-slate-100 focus:ring-2 focus:ring-sky-600 focus:outline-none"
          >
            {t('planning.modal.close')}
          </button>
        </div>

        <dl className="grid gap-1 md:grid-cols-2">
          <Row label={t('planning.modal.status')}>
            <span className="inline-flex items-center gap-1">
              {shopOrderStatusName(order.Status)}
              <InfoTip label={t('planning.modal.statusHelpLabel')} text={t('planning.modal.statusHelp')} />
            </span>
          </Row>
          <Row label={t('planning.modal.material')}>
            <span className="inline-flex items-center gap-1">
              <span aria-hidden="true" className={`h-2.5 w-2.5 rounded-full ${AVAILABILITY_DOT[availability]}`} />
              {t(AVAILABILITY_LABEL[availability])}
            </span>
          </Row>
          <Row label={t('planning.modal.quantity')}>
            {num(order.ProducedQuantity)} / {num(order.PlannedQuantity)} {order.Unit ?? ''}
          </Row>
          <Row label={t('planning.modal.project')}>
            {order.Project ? (
              <ExternalLink page="project" division={division} id={order.Project} code={order.ProjectDescription}>
                {order.ProjectDescription || t('link.project')}
              </ExternalLink>
            ) : (
              '–'
            )}
          </Row>
          {order.ItemVersion && (
            <Row label={t('planning.modal.itemVersion')}>
              <ExternalLink page="itemVersion" division={division} id={order.ItemVersion} code={order.ItemVersionDescription}>
                {order.ItemVersionDescription || t('link.itemVersion')}
              </ExternalLink>
            </Row>
          )}
          <Row label={t('planning.modal.exact')}>
            <ExternalLink page="shopOrder" division={division} id={order.ID} code={order.ShopOrderNumber} />
          </Row>
        </dl>

        <WriteList writes={mine} onDismiss={onDismissWrite} />

        <div className={`${section} md:flex-row md:flex-wrap`}>
          <Toggle label={t('planning.released')} checked={!!order.IsReleased} onChange={(on) => onWrite({ IsReleased: on ? 1 : 0 })} />
          <Toggle label={t('planning.onHold')} checked={!!order.IsOnHold} onChange={(on) => onWrite({ IsOnHold: on ? 1 : 0 })} />
          <Toggle label={t('planning.inPlanning')} checked={!!order.IsInPlanning} onChange={(on) => onWrite({ IsInPlanning: on ? 1 : 0 })} />
        </div>

        <form onSubmit={saveDates} className={`${section} md:flex-row md:items-end`} noValidate>
          <label className="flex flex-col gap-1 text-sm">
            {t('planning.modal.start')}
            <input type="date" value={start} onChange={(e) => setStart(e.target.value)} className="min-h-11 rounded border border-slate-300 px-2" />
          </label>
          <label className="flex flex-col gap-1 text-sm">
            {t('planning.modal.end')}
            <input type="date" value={end} onChange={(e) => setEnd(e.target.value)} className="min-h-11 rounded border border-slate-300 px-2" />
          </label>
          <button type="submit" className="min-h-11 rounded bg-sky-800 px-4 font-medium text-white hover:bg-sky-900">
            {t('planning.modal.saveDates')}
          </button>
          {order.Project && (
            <label className="flex min-h-11 items-center gap-2 text-sm">
              <input type="checkbox" className="h-5 w-5" checked={shiftProject} onChange={(e) => onShiftProject(e.target.checked)} />
              {t('planning.shift.option')}
            </label>
          )}
          {dateError && (
            <p role="alert" className="text-sm text-red-700">
              {dateError}
            </p>
          )}
        </form>

        <form onSubmit={saveDetails} className={`${section} md:grid md:grid-cols-3 md:items-end`} noValidate data-testid="order-details">
          <label className="flex flex-col gap-1 text-sm">
            {t('planning.modal.selectionCode')}
            <select value={selectionCode} onChange={(e) => setSelectionCode(e.target.value)} className="min-h-11 rounded border border-slate-300 bg-white px-2">
              <option value="">{t('planning.modal.noSelectionCode')}</option>
              {codeChoices.map((c) => (
                <option key={c.ID} value={c.ID.toLowerCase()}>
                  {c.Description ? `${c.Code} – ${c.Description}` : c.Code}
                </option>
              ))}
            </select>
          </label>
          <label className="flex flex-col gap-1 text-sm">
            {t('planning.modal.yourRef')}
            <input value={yourRef} onChange={(e) => setYourRef(e.target.value)} className="min-h-11 rounded border border-slate-300 px-2" />
          </label>
          <label className="flex flex-col gap-1 text-sm">
            {t('planning.modal.leadDays')}
            <input
              inputMode="numeric"
              value={leadDays}
              onChange={(e) => setLeadDays(e.target.value)}
              className="min-h-11 rounded border border-slate-300 px-2"
            />
          </label>
          <button type="submit" className="min-h-11 w-fit rounded bg-sky-800 px-4 font-medium text-white hover:bg-sky-900">
            {t('planning.modal.saveDetails')}
          </button>
          {selectionCodes === undefined && <p className="text-sm text-amber-800 md:col-span-2">{t('planning.modal.codesUnavailable')}</p>}
          {detailsError && (
            <p role="alert" className="text-sm text-red-700 md:col-span-3">
              {detailsError}
            </p>
          )}
        </form>

        <form
          onSubmit={(e) => {
            e.preventDefault()
            onWrite({ Notes: notes })
          }}
          className={section}
        >
          <label className="flex flex-col gap-1 text-sm font-medium">
            {t('planning.modal.notes')}
            <textarea value={notes} onChange={(e) => setNotes(e.target.value)} rows={3} className="rounded border border-slate-300 p-2 font-normal" />
          </label>
          <button
            type="submit"
            disabled={notes === (order.Notes ?? '')}
            className="min-h-11 w-fit rounded bg-sky-800 px-4 font-medium text-white hover:bg-sky-900 disabled:opacity-50"
          >
            {t('planning.modal.saveNotes')}
          </button>
        </form>

        <ShopOrderLabels order={order} />

        <section className={section} aria-label={t('planning.modal.plans')}>
          <h3 className="font-semibold">{t('planning.modal.plans')}</h3>
          {plans.isPending ? (
            <Loading />
          ) : plans.error ? (
            <p role="alert" className="text-sm text-red-700">
              {userMessage(plans.error)}
            </p>
          ) : plans.data.length === 0 ? (
            <p className="text-sm text-slate-500">{t('planning.modal.noPlans')}</p>
          ) : (
            <ul className="divide-y divide-slate-100 text-sm" data-testid="modal-plans">
              {plans.data.map((p) => {
                const a = lineAvailability(orderKey, p.LineNumber)
                return (
                  <li key={p.ID} className="flex flex-wrap items-center gap-x-3 py-1.5">
                    <span className="font-mono">{p.ItemCode}</span>
                    <span className="min-w-0 flex-1 truncate text-slate-700">{p.ItemDescription}</span>
                    <span className="tabular-nums">
                      {num(p.PlannedQuantity)} {p.Unit ?? ''}
                    </span>
                    <span className="text-slate-600">
                      {Number(p.Type) === 2 ? t('planning.modal.byProduct') : p.StatusDescription || materialPlanStatusName(p.Status)}
                    </span>
                    {a && (
                      <span data-testid="line-availability" className="inline-flex items-center gap-1 text-xs">
                        <span aria-hidden="true" className={`h-2 w-2 rounded-full ${AVAILABILITY_DOT[a]}`} />
                        {t(AVAILABILITY_LABEL[a])}
                      </span>
                    )}
                  </li>
                )
              })}
            </ul>
          )}
        </section>

        <SalesLines orderId={order.ID} division={division} />

        <section className={section} aria-label={t('planning.modal.steps')}>
          <h3 className="font-semibold">{t('planning.modal.steps')}</h3>
          {steps.isPending ? (
            <Loading />
          ) : steps.error ? (
            <p role="alert" className="text-sm text-red-700">
              {userMessage(steps.error)}
            </p>
          ) : steps.data.length === 0 ? (
            <p className="text-sm text-slate-500">{t('planning.modal.noSteps')}</p>
          ) : (
            <ul className="divide-y divide-slate-100 text-sm">
              {steps.data.map((s) => (
                <li key={String(s.ID)} className="flex flex-wrap items-center gap-x-3 py-1.5">
                  <span className="font-mono">{String(s.OperationCode ?? '')}</span>
                  <span className="min-w-0 flex-1 truncate">{String(s.Description ?? s.OperationDescription ?? '')}</span>
                  <span className="text-slate-600">{String(s.WorkcenterCode ?? '')}</span>
                  <span className="tabular-nums">{t('planning.modal.hours', { hours: num(s.PlannedTotalHours) })}</span>
                  <span className="text-slate-600">
                    {shownDate(s.PlannedStartDate)} → {shownDate(s.PlannedEndDate)}
                  </span>
                  <span className="text-slate-600">{shopOrderStatusName(s.Status)}</span>
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
      {toast}
    </Dialog>
  )
}
