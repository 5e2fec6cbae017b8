import { useState } from 'react'
import { saveHours, type Employee, type ShopOrderRef, type StepRef } from './api.ts'
import type { WriteOutcome } from '../../api/writes.ts'
import { inputClass, labelClass } from '../../components/ui/Field.tsx'
import { Section } from '../../components/ui/Section.tsx'
import { WriteStatus } from '../../components/WriteStatus.tsx'
import { t } from '../../i18n/index.ts'
import { employeeNames, hoursError, type Activity, type HourEntry } from './logic.ts'
import { parseQuantity } from '../../lib/quantity.ts'
import { ActivityChoice } from './ActivityChoice.tsx'
import { StepPicker, type Picked } from './StepPicker.tsx'
import { userMessage } from '../../lib/errors.ts'
import { Button } from '../../components/ui/Button.tsx'
import { Select } from '../../components/ui/Select.tsx'

export interface Editing {
  entry: HourEntry | null
  order: ShopOrderRef | null
  step: StepRef | null
  day: string
  employee: string
}

/** Book hours, or change a booking: employee, day, shop order and step, setup or run, hours. */
export function HourForm({ employees, editing, onSaved, onClose }: { employees: Employee[]; editing: Editing; onSaved: () => void; onClose: () => void }) {
  const e = editing.entry
  const [employee, setEmployee] = useState(editing.employee)
  const [day, setDay] = useState(editing.day)
  const [picked, setPicked] = useState<Picked>({ order: editing.order, step: editing.step })
  const [activity, setActivity] = useState<Activity>(e?.activity ?? 'run')
  const [hours, setHours] = useState(e ? String(e.hours) : '')
  const [notes, setNotes] = useState(e?.notes ?? '')
  const [tried, setTried] = useState(false)
  const [sending, setSending] = useState(false)
  const [outcome, setOutcome] = useState<WriteOutcome | null>(null)
  const [sendError, setSendError] = useState<string | null>(null)

  const hoursProblem = hoursError(hours)
  const problem = !employee ? 'hours.error.noEmployee' : !/^\d{4}-\d{2}-\d{2}$/.test(day) ? 'hours.error.noDay' : hoursProblem

  async function save() {
    setTried(true)
    if (problem) return
    setSending(true)
    setSendError(null)
    try {
      const res = await saveHours(
        {
          employee,
          day,
          hours: parseQuantity(hours) ?? 0,
          activity,
          shopOrder: picked.order?.ID,
          step: picked.step?.ID,
          workCenter: picked.step?.Workcenter,
          notes,
        },
        t('offline.hours', {
          hours: hours.trim(),
          day,
          employee: employeeNames(employees).get(employee.toLowerCase()) ?? '',
          order: picked.order ? String(picked.order.ShopOrderNumber) : '–',
        }),
        e?.id,
      )
      setOutcome(res)
    } catch (err) {
      setSendError(userMessage(err))
    } finally {
      setSending(false)
    }
  }

  return (
    <Section
      title={e ? t('hours.editTitle') : t('hours.addTitle')}
      titleId="hour-form-title"
      data-testid="hour-form"
      actions={
        <Button type="button" variant="secondary" onClick={onClose}>
          {t('hours.close')}
        </Button>
      }
    >
      <form
        className="flex flex-col gap-3"
        noValidate
        onSubmit={(ev) => {
          ev.preventDefault()
          void save()
        }}
      >
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
          <label className={labelClass}>
            {t('hours.employee')}
            <Select name="employee" value={employee} onChange={(ev) => setEmployee(ev.target.value)}>
              <option value="">{t('hours.chooseEmployee')}</option>
              {employees.map((m) => (
                <option key={m.ID} value={m.ID.toLowerCase()}>
                  {m.FullName} ({m.Code})
                </option>
              ))}
            </Select>
          </label>
          <label className={labelClass}>
            {t('hours.day')}
            <input type="date" className={inputClass} name="day" value={day} onChange={(ev) => setDay(ev.target.value)} />
          </label>
        </div>
        <StepPicker value={picked} onChange={setPicked} initialNumber={editing.order ? String(editing.order.ShopOrderNumber) : ''} />
        <ActivityChoice value={activity} onChange={setActivity} />
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-2">
          <label className={labelClass}>
            {t('hours.hours')}
            <input
              className={inputClass}
              name="hours"
              inputMode="decimal"
              value={hours}
              onChange={(ev) => setHours(ev.target.value)}
              aria-invalid={tried && !!hoursProblem}
            />
          </label>
          <label className={labelClass}>
            {t('hours.notes')}
            <input className={inputClass} name="notes" value={notes} onChange={(ev) => setNotes(ev.target.value)} />
          </label>
        </div>
        {tried && problem && (
          <p role="alert" className="text-sm text-red-700">
            {t(problem)}
          </p>
        )}
        {sendError && (
          <p role="alert" className="text-sm text-red-700">
            {sendError}
          </p>
        )}
        {outcome && <WriteStatus outcome={outcome} what={e ? t('hours.changed') : t('hours.booked')} onDelivered={onSaved} />}
        {outcome && outcome.state !== 'failed' && !e ? (
          // a new booking was sent: another press would book the hours twice
          <Button
            type="button"
            variant="secondary"
            onClick={() => {
              setOutcome(null)
              setHours('')
              setTried(false)
            }}
          >
            {t('hours.another')}
          </Button>
        ) : (
          <Button type="submit" variant="primary" disabled={sending}>
            {sending ? t('hours.sending') : t('hours.save')}
          </Button>
        )}
      </form>
    </Section>
  )
}
