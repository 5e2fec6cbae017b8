import { useQuery } from '@tanstack/react-query'
import { hoursKeys } from '../../api/queries.ts'
import { useState } from 'react'
import { fetchSteps, findShopOrder, stepLabel, type ShopOrderRef, type StepRef } from './api.ts'
import { inputClass, labelClass } from '../../components/ui/Field.tsx'
import { t } from '../../i18n/index.ts'
import { shopOrderNumberOf } from '../../lib/scan.ts'
import { shopOrderStatusName } from '../../lib/status.ts'
import { userMessage } from '../../lib/errors.ts'
import { Button } from '../../components/ui/Button.tsx'

export interface Picked {
  order: ShopOrderRef | null
  step: StepRef | null
}

/**
 * A shop order by number (typed or scanned) and one of its routing steps, as big buttons on
 * handhelds.
 */
export function StepPicker({ value, onChange, initialNumber = '' }: { value: Picked; onChange: (p: Picked) => void; initialNumber?: string }) {
  const [typed, setTyped] = useState(initialNumber)
  const [looked, setLooked] = useState<{ number: string; found: boolean } | null>(null)
  const [error, setError] = useState<string | null>(null)
  const steps = useQuery({ queryKey: hoursKeys.steps(value.order?.ID), queryFn: () => fetchSteps(value.order!.ID), enabled: !!value.order })

  async function look() {
    setError(null)
    // the same reading of a code as Scanning's: "SO 24005" off the order's papers, or the bare number
    const number = shopOrderNumberOf(typed)
    if (number === null) {
      setError(t('hours.error.shopOrderNumber'))
      return
    }
    const n = String(number)
    try {
      const order = await findShopOrder(n)
      setLooked({ number: n, found: !!order })
      onChange({ order, step: null })
    } catch (e) {
      setError(userMessage(e))
    }
  }

  return (
    <div className="flex flex-col gap-2">
      <label className={labelClass}>
        {t('hours.shopOrder')}
        <span className="flex gap-2">
          <input
            className={inputClass}
            inputMode="numeric"
            value={typed}
            name="shopOrder"
            placeholder={t('hours.shopOrderPlaceholder')}
            onChange={(e) => setTyped(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter') {
                e.preventDefault()
                void look()
              }
            }}
          />
          <Button type="button" variant="secondary" onClick={() => void look()}>
            {t('hours.find')}
          </Button>
        </span>
      </label>
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {error}
        </p>
      )}
      {looked && !looked.found && (
        <p role="alert" className="text-sm text-red-700">
          {t('hours.noShopOrder', { number: looked.number })}
        </p>
      )}
      {value.order && (
        <p className="text-sm text-slate-700" data-testid="picked-order">
          {t('hours.orderLine', {
            number: value.order.ShopOrderNumber,
            item: `${value.order.ItemCode} ${value.order.ItemDescription}`,
            status: shopOrderStatusName(value.order.Status),
          })}
        </p>
      )}
      {value.order && steps.isSuccess && steps.data.length === 0 && <p className="text-sm text-amber-800">{t('hours.noSteps')}</p>}
      {value.order && (steps.data ?? []).length > 0 && (
        <fieldset className="flex flex-col gap-1">
          <legend className="text-sm font-medium text-slate-700">{t('hours.step')}</legend>
          <div className="grid grid-cols-1 gap-2 sm:grid-cols-2">
            {(steps.data ?? []).map((s) => {
              const on = value.step?.ID === s.ID
              return (
                <button
                  type="button"
                  key={s.ID}
                  aria-pressed={on}
                  onClick={() => onChange({ order: value.order, step: s })}
                  className={`min-h-11 rounded border px-3 py-2 text-left text-sm ${on ? 'border-sky-800 bg-sky-800 text-white' : 'border-slate-300 bg-white hover:bg-slate-50'}`}
                >
                  <span className="block font-medium">{stepLabel(s)}</span>
                  <span className={`block text-xs ${on ? 'text-sky-100' : 'text-slate-500'}`}>
                    {t('hours.stepPlanned', { workcenter: s.WorkcenterCode, setup: s.PlannedSetupHours ?? 0, run: s.PlannedRunHours ?? 0 })}
                  </span>
                </button>
              )
            })}
          </div>
        </fieldset>
      )}
    </div>
  )
}
