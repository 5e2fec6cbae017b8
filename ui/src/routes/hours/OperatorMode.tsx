import { useEffect, useState } from 'react'
import { saveHours, stepLabel, type Employee } from '../../api/hours.ts'
import type { WriteOutcome } from '../../api/writes.ts'
import { inputClass, primaryButton, secondaryButton, sectionClass } from '../../components/formStyles.ts'
import { WriteStatus } from '../../components/WriteStatus.tsx'
import { locale, t } from '../../i18n/index.ts'
import { elapsedHours, formatElapsed, readTimers, writeTimers, type Activity, type Timer } from '../../lib/hours.ts'
import { isoDay } from '../../lib/odata.ts'
import { formatQuantity } from '../../lib/quantity.ts'
import { ActivityChoice } from './ActivityChoice.tsx'
import { StepPicker, type Picked } from './StepPicker.tsx'

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
    <section className={sectionClass} aria-labelledby="who-title">
      <h2 id="who-title" className="text-lg font-semibold">
        {t('hours.whoAreYou')}
      </h2>
      <input className={inputClass} type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder={t('hours.findEmployee')} aria-label={t('hours.findEmployee')} />
      <div className="grid grid-cols-2 gap-2 sm:grid-cols-3 lg:grid-cols-4">
        {shown.map((e) => {
          const running = timers.filter((x) => x.employee === e.ID.toLowerCase()).length
          return (
            <button type="button" key={e.ID} onClick={() => onPick(e)} className="flex min-h-16 flex-col items-start justify-center rounded border border-slate-300 bg-white px-3 py-2 text-left hover:bg-sky-50">
              <span className="font-medium">{e.FullName}</span>
              <span className="text-xs text-slate-500">
                {e.Code}
                {running > 0 && <span className="ml-2 rounded bg-emerald-100 px-1 text-emerald-900">{t('hours.runningCount', { count: running })}</span>}
              </span>
            </button>
          )
        })}
      </div>
    </section>
  )
}

/**
 * Operator mode, after Exact's shop-floor terminal: pick yourself, start a timer on an
 * operation of a shop order, and stop it to book the hours.
 */
export function OperatorMode({ employees, division, onBooked }: { employees: Employee[]; division: number; onBooked: () => void }) {
  const now = useNow()
  const [timers, setTimers] = useState<Timer[]>(() => readTimers(localStorage, division))
  const [who, setWho] = useState<Employee | null>(null)
  const [picked, setPicked] = useState<Picked>({ order: null, step: null })
  const [activity, setActivity] = useState<Activity>('run')
  const [booked, setBooked] = useState<{ key: string; what: string; outcome: WriteOutcome }[]>([])
  const [stopping, setStopping] = useState<string | null>(null)
  const [stopError, setStopError] = useState<string | null>(null)

  const update = (next: Timer[]) => {
    setTimers(next)
    writeTimers(localStorage, division, next)
  }

  if (!who) return <EmployeeGrid employees={employees} timers={timers} onPick={setWho} />
  const mine = timers.filter((x) => x.employee === who.ID.toLowerCase())

  function start() {
    if (!who || !picked.order || !picked.step) return
    const timer: Timer = {
      id: `${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
      employee: who.ID.toLowerCase(),
      employeeName: who.FullName,
      shopOrder: picked.order.ID,
      shopOrderNumber: String(picked.order.ShopOrderNumber),
      step: picked.step.ID,
      stepLabel: stepLabel(picked.step),
      workCenter: picked.step.Workcenter,
      activity,
      startedMs: Date.now(),
    }
    update([...timers, timer])
    setPicked({ order: null, step: null })
  }

  async function stop(timer: Timer) {
    setStopping(timer.id)
    setStopError(null)
    const hours = elapsedHours(timer.startedMs, Date.now())
    try {
      const outcome = await saveHours({
        employee: timer.employee,
        day: isoDay(new Date(timer.startedMs)),
        hours,
        activity: timer.activity,
        shopOrder: timer.shopOrder,
        step: timer.step,
        workCenter: timer.workCenter,
      })
      const what = t('hours.bookedTimer', { hours: formatQuantity(hours, locale()), number: timer.shopOrderNumber, step: timer.stepLabel })
      setBooked((b) => [{ key: timer.id, what, outcome }, ...b])
      // a refused booking keeps its timer, so the hours are not lost
      if (outcome.state !== 'failed') update(readTimers(localStorage, division).filter((x) => x.id !== timer.id))
    } catch (e) {
      setStopError(e instanceof Error ? e.message : String(e))
    } finally {
      setStopping(null)
    }
  }

  return (
    <div className="flex flex-col gap-4">
      <div className="flex items-center justify-between gap-2">
        <p className="text-lg" data-testid="operator">
          {t('hours.operatorIs', { name: who.FullName })}
        </p>
        <button type="button" className={secondaryButton} onClick={() => setWho(null)}>
          {t('hours.switchOperator')}
        </button>
      </div>
      {mine.length > 0 && (
        <section className={sectionClass} aria-labelledby="running-title">
          <h2 id="running-title" className="text-lg font-semibold">
            {t('hours.running')}
          </h2>
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
                  {formatElapsed(now - x.startedMs)}
                </span>
                <button type="button" className="min-h-11 rounded bg-red-700 px-5 py-2 font-medium text-white hover:bg-red-800 disabled:opacity-50" disabled={stopping === x.id} onClick={() => void stop(x)}>
                  {t('hours.stop')}
                </button>
              </li>
            ))}
          </ul>
        </section>
      )}
      {stopError && (
        <p role="alert" className="text-sm text-red-700">
          {stopError}
        </p>
      )}
      {booked.map((b) => (
        <WriteStatus key={b.key} outcome={b.outcome} what={b.what} onDelivered={onBooked} />
      ))}
      <section className={sectionClass} aria-labelledby="start-title">
        <h2 id="start-title" className="text-lg font-semibold">
          {t('hours.startTitle')}
        </h2>
        <StepPicker value={picked} onChange={setPicked} />
        <ActivityChoice value={activity} onChange={setActivity} />
        <button type="button" className={primaryButton} disabled={!picked.order || !picked.step} onClick={start}>
          {t('hours.start')}
        </button>
        {picked.order && !picked.step && <p className="text-sm text-slate-600">{t('hours.pickStep')}</p>}
      </section>
    </div>
  )
}
