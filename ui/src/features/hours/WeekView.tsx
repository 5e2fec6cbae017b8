import { useQuery } from '@tanstack/react-query'
import { hoursKeys, useDivision } from '../../api/queries.ts'
import { useMemo, useState } from 'react'
import { fetchNames, fetchWeek, stepLabel, type Employee } from './api.ts'
import { labelClass } from '../../components/ui/Field.tsx'
import { Section, sectionClass } from '../../components/ui/Section.tsx'
import { locale, t } from '../../i18n/index.ts'
import { formatDate, formatWeekday, orgToday, weekNumber } from '../../lib/dateTime.ts'
import { addDays, employeeNames, weekDays, weekStart, weekTotals, type HourEntry } from './logic.ts'
import { isoDay } from '../../lib/odata.ts'
import { formatQuantity } from '../../lib/quantity.ts'
import { againWhileStored, LIVE_STALE_MS } from '../../api/exactDirect.ts'
import { oldestAsOf } from '../../api/live.ts'
import { AsOf } from '../../components/AsOf.tsx'
import { DeleteInExact } from '../../components/DeleteInExact.tsx'
import { HourForm, type Editing } from './HourForm.tsx'
import { userMessage } from '../../lib/errors.ts'
import { Button } from '../../components/ui/Button.tsx'
import { Select } from '../../components/ui/Select.tsx'

const fmt = (n: number) => (n ? formatQuantity(n, locale()) : '')
/** The organization's today as a local midnight, the weeks' arithmetic. */
const today = () => new Date(`${orgToday()}T00:00:00`)

/** A week of hour registrations: totals per employee and day, the bookings, add and change. */
export function WeekView({ employees, employeesAsOf = null }: { employees: Employee[]; employeesAsOf?: number | null }) {
  const [start, setStart] = useState(() => weekStart(today()))
  const [who, setWho] = useState('')
  const [editing, setEditing] = useState<Editing | null>(null)
  // bookings Exact deleted: gone at once, before the week is read again
  const [deleted, setDeleted] = useState<ReadonlySet<string>>(new Set())
  const division = useDivision()
  const week = useQuery({
    queryKey: hoursKeys.week(division, isoDay(start)),
    queryFn: () => fetchWeek(start),
    retry: false,
    staleTime: LIVE_STALE_MS,
    refetchInterval: againWhileStored,
  })
  const names = useQuery({
    queryKey: hoursKeys.names(division, isoDay(start), week.data?.rows.length),
    queryFn: () => fetchNames(week.data?.rows ?? []),
    enabled: week.isSuccess,
  })
  const employeeName = useMemo(() => employeeNames(employees), [employees])
  const days = weekDays(start)
  const entries = (week.data?.rows ?? []).filter((e) => (!who || e.employee === who) && !deleted.has(e.id))
  const totals = weekTotals(entries, start).sort((a, b) => (employeeName.get(a.employee) ?? '').localeCompare(employeeName.get(b.employee) ?? ''))
  const sorted = [...entries].sort(
    (a, b) => a.day.localeCompare(b.day) || (employeeName.get(a.employee) ?? '').localeCompare(employeeName.get(b.employee) ?? ''),
  )

  const edit = (e: HourEntry) =>
    setEditing({ entry: e, order: names.data?.orders.get(e.shopOrder) ?? null, step: names.data?.steps.get(e.step) ?? null, day: e.day, employee: e.employee })
  const gone = (id: string) => {
    setDeleted((s) => new Set(s).add(id))
    setEditing((ed) => (ed?.entry?.id === id ? null : ed))
    void week.refetch()
  }
  const dayName = (day: string) => formatWeekday(day)
  const add = () => setEditing({ entry: null, order: null, step: null, day: orgToday(), employee: who })

  return (
    <div className="flex flex-col gap-4">
      <section className={sectionClass} aria-labelledby="week-title">
        <div className="flex flex-wrap items-end justify-between gap-3">
          <div className="flex items-center gap-2">
            <Button type="button" variant="secondary" onClick={() => setStart(addDays(start, -7))} aria-label={t('hours.prevWeek')}>
              ‹
            </Button>
            <h2 id="week-title" className="text-lg font-semibold" data-testid="week-title">
              {t('hours.week', { number: weekNumber(isoDay(start)), from: formatDate(isoDay(days[0])), to: formatDate(isoDay(days[6])) })}
            </h2>
            <Button type="button" variant="secondary" onClick={() => setStart(addDays(start, 7))} aria-label={t('hours.nextWeek')}>
              ›
            </Button>
            <Button type="button" variant="secondary" onClick={() => setStart(weekStart(today()))}>
              {t('hours.thisWeek')}
            </Button>
          </div>
          <label className={`${labelClass} sm:w-64`}>
            {t('hours.employee')}
            <Select value={who} onChange={(e) => setWho(e.target.value)}>
              <option value="">{t('hours.everyone')}</option>
              {employees.map((m) => (
                <option key={m.ID} value={m.ID.toLowerCase()}>
                  {m.FullName} ({m.Code})
                </option>
              ))}
            </Select>
          </label>
          <Button type="button" variant="primary" onClick={add}>
            {t('hours.add')}
          </Button>
        </div>
        <AsOf asOf={oldestAsOf(week.data?.asOf, employeesAsOf)} />
        {week.isPending && <p className="text-slate-500">{t('app.loading')}</p>}
        {week.error && (
          <p role="alert" className="text-red-700">
            {t('hours.loadError', { message: userMessage(week.error) })}
          </p>
        )}
        {week.isSuccess && totals.length === 0 && <p className="text-slate-600">{t('hours.noneThisWeek')}</p>}
        {totals.length > 0 && (
          <div className="overflow-x-auto">
            <table className="w-full text-sm" data-testid="week-totals">
              <thead className="bg-slate-50 text-slate-500">
                <tr>
                  <th scope="col" className="px-2 py-2 text-left font-medium">
                    {t('hours.employee')}
                  </th>
                  {days.map((d) => (
                    <th key={d.getTime()} scope="col" className="px-2 py-2 text-right font-medium">
                      {formatWeekday(isoDay(d), false)}
                    </th>
                  ))}
                  <th scope="col" className="px-2 py-2 text-right font-medium">
                    {t('hours.total')}
                  </th>
                </tr>
              </thead>
              <tbody className="divide-y divide-slate-100">
                {totals.map((r) => (
                  <tr key={r.employee}>
                    <th scope="row" className="px-2 py-2 text-left font-normal whitespace-nowrap">
                      {employeeName.get(r.employee) ?? r.employee}
                    </th>
                    {r.days.map((h, i) => (
                      <td key={i} className="px-2 py-2 text-right tabular-nums">
                        {fmt(h)}
                      </td>
                    ))}
                    <td className="px-2 py-2 text-right font-semibold tabular-nums">{fmt(r.total)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
      {editing && (
        <HourForm
          key={editing.entry?.id ?? 'new'}
          employees={employees}
          editing={editing}
          onSaved={() => void week.refetch()}
          onClose={() => setEditing(null)}
        />
      )}
      {sorted.length > 0 && (
        <Section title={t('hours.entries', { count: sorted.length })} titleId="entries-title">
          <ul className="divide-y divide-slate-100" data-testid="hour-entries">
            {sorted.map((e) => {
              const order = names.data?.orders.get(e.shopOrder)
              const step = names.data?.steps.get(e.step)
              return (
                <li key={e.id} className="flex items-center gap-3 py-2" data-testid="hour-entry">
                  <div className="flex min-w-0 flex-1 flex-col text-sm">
                    <span>
                      <strong>{employeeName.get(e.employee) ?? e.employee}</strong> · {dayName(e.day)} ·{' '}
                      <span className="tabular-nums">{t('hours.hoursValue', { hours: formatQuantity(e.hours, locale()) })}</span> ·{' '}
                      {t(e.activity === 'setup' ? 'hours.setup' : 'hours.run')}
                    </span>
                    <span className="text-slate-600">
                      {order ? t('hours.orderShort', { number: order.ShopOrderNumber }) : ''}
                      {step ? ` · ${stepLabel(step)}` : ''}
                      {e.notes ? ` · ${e.notes}` : ''}
                    </span>
                  </div>
                  <Button type="button" variant="secondary" onClick={() => edit(e)}>
                    {t('hours.edit')}
                  </Button>
                  <DeleteInExact
                    endpoint="timeTransactions"
                    id={e.id}
                    question={t('hours.deleteQuestion', {
                      hours: formatQuantity(e.hours, locale()),
                      employee: employeeName.get(e.employee) ?? e.employee,
                      day: dayName(e.day),
                    })}
                    what={t('hours.deleted')}
                    onDeleted={() => gone(e.id)}
                  />
                </li>
              )
            })}
          </ul>
        </Section>
      )}
    </div>
  )
}
