import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { hoursKeys } from '../../api/queries.ts'
import { useEffect, useState } from 'react'
import { isApiError } from '../../api/client.ts'
import { fetchTimers, removeTimer, saveHours, startTimer, stepLabel, type Employee } from './api.ts'
import type { WriteOutcome } from '../../api/writes.ts'
import { inputClass, labelClass } from '../../components/ui/Field.tsx'
import { Section } from '../../components/ui/Section.tsx'
import { WriteStatus } from '../../components/WriteStatus.tsx'
import { locale, t } from '../../i18n/index.ts'
import { carryOverTimers, clockOffset, employeeNames, formatElapsed, hoursError, stopHoursText, type Activity, type Timer } from './logic.ts'
import { isoDay } from '../../lib/odata.ts'
import { formatQuantity, parseQuantity } from '../../lib/quantity.ts'
import { ActivityChoice } from './ActivityChoice.tsx'
import { StepPicker, type Picked } from './StepPicker.tsx'
import { userMessage } from '../../lib/errors.ts'
import { Button } from '../../components/ui/Button.tsx'

function useNow(): number {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), 1_000)
    return () => clearInterval(id)
  }, [])
  return now
}

function EmployeeGrid({ employees, timers, onPick }: { employees: Employee[]; timers: Timer[]; onPick: (e: Employee) => void }) {
  const [filter, setFilter] = useState('')
  const q = filter.trim().toLowerCase()
  const shown = employees.filter((e) => !q || `${e.FullName} ${e.Code}`.toLowerCase().includes(q))
  return (
    <Section title={t('hours.whoAreYou')} titleId="who-title">
      <input
        className={inputClass}
        type="search"
        value={filter}
        onChange={(e) => setFilter(e.target.value)}
        placeholder={t('hours.findEmployee')}
        aria-label={t('hours.findEmployee')}
      />
      <div className="grid grid-cols-2 gap-2 sm:grid-cols-3 lg:grid-cols-4">
        {shown.map((e) => {
          const running = timers.filter((x) => x.employee === e.ID.toLowerCase()).length
          return (
            <button
              type="button"
              key={e.ID}
              onClick={() => onPick(e)}
              className="flex min-h-16 flex-col items-start justify-center rounded border border-slate-300 bg-white px-3 py-2 text-left hover:bg-sky-50"
            >
              <span className="font-medium">{e.FullName}</span>
              <span className="text-xs text-slate-500">
                {e.Code}
                {running > 0 && <span className="ml-2 rounded bg-emerald-100 px-1 text-emerald-900">{t('hours.runningCount', { count: running })}</span>}
              </span>
            </button>
          )
        })}
      </div>
    </Section>
  )
}

/** How often the running timers are asked again, so a timer started on another handheld shows. */
const TIMERS_REFRESH_MS = 10_000

/** The server's timers with its clock's offset from this browser's. */
async function readTimers() {
  const list = await fetchTimers()
  return { timers: list.timers, offset: clockOffset(list, Date.now()) }
}

/** The check before booking a stopped timer: the hours, editable, then Book or Cancel. */
function StopCheck({
  timer,
  initial,
  busy,
  onBook,
  onDiscard,
  onCancel,
}: {
  timer: Timer
  initial: string
  busy: boolean
  onBook: (hours: number) => void
  onDiscard: () => void
  onCancel: () => void
}) {
  const [typed, setTyped] = useState(initial)
  const problem = hoursError(typed)
  const id = `stop-hours-${timer.id}`
  return (
    <form
      className="flex w-full flex-col gap-2 border-t border-emerald-200 pt-3"
      data-testid="stop-check"
      onSubmit={(e) => {
        e.preventDefault()
        const hours = parseQuantity(typed)
        if (!problem && hours !== null) onBook(hours)
      }}
    >
      <p className="text-sm text-slate-700">{t('hours.stopCheck')}</p>
      <label className={labelClass} htmlFor={id}>
        {t('hours.stopHours')}
      </label>
      <input id={id} className={inputClass} inputMode="decimal" value={typed} onChange={(e) => setTyped(e.target.value)} aria-invalid={!!problem} />
      {problem && <p className="text-sm text-red-700">{t(problem)}</p>}
      <div className="flex flex-wrap gap-2">
        <Button type="submit" variant="primary" className="flex-1" disabled={busy || !!problem}>
          {t('hours.book')}
        </Button>
        <Button type="button" variant="secondary" className="flex-1" disabled={busy} onClick={onCancel}>
          {t('hours.cancel')}
        </Button>
      </div>
      <Button type="button" variant="link" disabled={busy} onClick={onDiscard}>
        {t('hours.discard')}
      </Button>
    </form>
  )
}

/**
 * Operator mode, after Exact's shop-floor terminal: pick yourself, start a timer on an
 * operation of a shop order, and stop it to book the hours. The timers are the server's, so
 * every handheld of the organization sees the same ones.
 */
export function OperatorMode({ employees, division, onBooked }: { employees: Employee[]; division: number; onBooked: () => void }) {
  const now = useNow()
  const queryClient = useQueryClient()
  const key = hoursKeys.timers(division)
  const list = useQuery({ queryKey: key, queryFn: readTimers, refetchInterval: TIMERS_REFRESH_MS })
  // a booked timer's removal is asked again a few times before the user is told
  const removal = useMutation({ mutationFn: removeTimer, retry: (n, e) => n < 4 && !isApiError(e, 404), retryDelay: 2_000 })
  const [who, setWho] = useState<Employee | null>(null)
  // the name with the employee number where two share it
  const whoName = who ? (employeeNames(employees).get(who.ID.toLowerCase()) ?? who.FullName) : ''
  const [picked, setPicked] = useState<Picked>({ order: null, step: null })
  const [activity, setActivity] = useState<Activity>('run')
  const [booked, setBooked] = useState<{ key: string; what: string; outcome: WriteOutcome }[]>([])
  const [checking, setChecking] = useState<{ id: string; hours: string } | null>(null)
  const [busy, setBusy] = useState<string | null>(null)
  const [problem, setProblem] = useState<string | null>(null)
  // booked timers whose removal is on its way: not shown, so they cannot be booked twice
  const [gone, setGone] = useState<ReadonlySet<string>>(() => new Set())

  // Timers this browser kept before the server kept them are handed over once.
  useEffect(() => {
    void carryOverTimers(localStorage, division, startTimer).then((n) => {
      if (n > 0) void queryClient.invalidateQueries({ queryKey: hoursKeys.timers(division) })
    })
  }, [division, queryClient])

  const offset = list.data?.offset ?? 0
  const timers = (list.data?.timers ?? []).filter((x) => !gone.has(x.id))
  const refresh = () => queryClient.invalidateQueries({ queryKey: key })
  const listError = list.error ?? list.failureReason
  const errorNote = listError && (
    <p role="alert" className="text-sm text-red-700">
      {t('hours.timersError', { message: listError.message })}
    </p>
  )

  if (!who)
    return (
      <>
        {errorNote}
        <EmployeeGrid employees={employees} timers={timers} onPick={setWho} />
      </>
    )
  const mine = timers.filter((x) => x.employee === who.ID.toLowerCase())

  async function start() {
    if (!who || !picked.order || !picked.step) return
    setBusy('start')
    setProblem(null)
    try {
      await startTimer({
        employee: who.ID.toLowerCase(),
        employeeName: whoName,
        shopOrder: picked.order.ID,
        shopOrderNumber: String(picked.order.ShopOrderNumber),
        step: picked.step.ID,
        stepLabel: stepLabel(picked.step),
        workCenter: picked.step.Workcenter ?? '',
        activity,
      })
      setPicked({ order: null, step: null })
      await refresh()
    } catch (e) {
      setProblem(userMessage(e))
    } finally {
      setBusy(null)
    }
  }

  /** Removes a timer on the server; answers why it could not, or null. */
  async function remove(timer: Timer): Promise<string | null> {
    setGone((g) => new Set(g).add(timer.id))
    try {
      await removal.mutateAsync(timer.id)
    } catch (e) {
      // stopped on another handheld meanwhile: it is gone, as meant
      if (!isApiError(e, 404)) {
        setGone((g) => new Set([...g].filter((id) => id !== timer.id)))
        return userMessage(e)
      }
    }
    await refresh()
    return null
  }

  async function book(timer: Timer, hours: number) {
    setBusy(timer.id)
    setProblem(null)
    try {
      const what = t('hours.bookedTimer', { hours: formatQuantity(hours, locale()), number: timer.shopOrderNumber, step: timer.stepLabel })
      const outcome = await saveHours(
        {
          employee: timer.employee,
          day: isoDay(new Date(timer.startedMs)),
          hours,
          activity: timer.activity,
          shopOrder: timer.shopOrder,
          step: timer.step,
          workCenter: timer.workCenter,
        },
        what,
        undefined,
        timer.id,
      )
      setBooked((b) => [{ key: `${timer.id}-${b.length}`, what, outcome }, ...b])
      setChecking(null)
      // the server took the timer off with the booking (a refused one runs on, so no hours are lost)
      await refresh()
    } catch (e) {
      // booked or removed on another handheld since: booking it here would count its hours twice
      if (isApiError(e, 409)) {
        setChecking(null)
        setProblem(t('hours.timerGone'))
        await refresh()
      } else setProblem(userMessage(e))
    } finally {
      setBusy(null)
    }
  }

  async function discard(timer: Timer) {
    setBusy(timer.id)
    setProblem(null)
    try {
      const failed = await remove(timer)
      if (failed) setProblem(failed)
      else setChecking(null)
    } finally {
      setBusy(null)
    }
  }

  return (
    <div className="flex flex-col gap-4">
      <div className="flex items-center justify-between gap-2">
        <p className="text-lg" data-testid="operator">
          {t('hours.operatorIs', { name: whoName })}
        </p>
        <Button type="button" variant="secondary" onClick={() => setWho(null)}>
          {t('hours.switchOperator')}
        </Button>
      </div>
      {errorNote}
      {mine.length > 0 && (
        <Section title={t('hours.running')} titleId="running-title">
          <ul className="flex flex-col gap-2">
            {mine.map((x) => (
              <li key={x.id} className="flex flex-wrap items-center gap-3 rounded border border-emerald-200 bg-emerald-50 p-3" data-testid="timer">
                <span className="flex min-w-0 flex-1 flex-col">
                  <span className="font-medium">{t('hours.orderShort', { number: x.shopOrderNumber })}</span>
                  <span className="text-sm text-slate-700">
                    {x.stepLabel} · {t(x.activity === 'setup' ? 'hours.setup' : 'hours.run')}
                  </span>
                </span>
                <span className="font-mono text-2xl tabular-nums" aria-label={t('hours.elapsed')}>
                  {formatElapsed(now + offset - x.startedMs)}
                </span>
                {checking?.id === x.id ? (
                  <StopCheck
                    timer={x}
                    initial={checking.hours}
                    busy={busy === x.id}
                    onBook={(hours) => void book(x, hours)}
                    onDiscard={() => void discard(x)}
                    onCancel={() => setChecking(null)}
                  />
                ) : (
                  <Button
                    type="button"
                    variant="danger"
                    disabled={busy === x.id}
                    onClick={() => setChecking({ id: x.id, hours: stopHoursText(x, Date.now() + offset, locale()) })}
                  >
                    {t('hours.stop')}
                  </Button>
                )}
              </li>
            ))}
          </ul>
        </Section>
      )}
      {problem && (
        <p role="alert" className="text-sm text-red-700">
          {problem}
        </p>
      )}
      {booked.map((b) => (
        <WriteStatus key={b.key} outcome={b.outcome} what={b.what} onDelivered={onBooked} />
      ))}
      <Section title={t('hours.startTitle')} titleId="start-title">
        <StepPicker value={picked} onChange={setPicked} />
        <ActivityChoice value={activity} onChange={setActivity} />
        <Button type="button" variant="primary" disabled={!picked.order || !picked.step || busy === 'start'} onClick={() => void start()}>
          {t('hours.start')}
        </Button>
        {picked.order && !picked.step && <p className="text-sm text-slate-600">{t('hours.pickStep')}</p>}
      </Section>
    </div>
  )
}
