import { useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { fetchEmployees } from './api.ts'
import { hoursKeys, liveKeys, useSession } from '../../api/queries.ts'
import { AsOf } from '../../components/AsOf.tsx'
import { Loading } from '../../components/Loading.tsx'
import { t } from '../../i18n/index.ts'
import { useIsWide } from '../../lib/media.ts'
import { OperatorMode } from './OperatorMode.tsx'
import { WeekView } from './WeekView.tsx'
import { LIVE_LIST_RETRY } from '../../api/queryClient.ts'
import { userMessage } from '../../lib/errors.ts'

type Mode = 'week' | 'operator'

/** Hour registrations: the week view for the office, operator mode for the shop floor. */
export default function Hours() {
  const { data: session } = useSession()
  const wide = useIsWide()
  const [mode, setMode] = useState<Mode>(() => (wide ? 'week' : 'operator'))
  const queryClient = useQueryClient()
  const employees = useQuery({ queryKey: liveKeys.list('employees', session?.division ?? 0), queryFn: fetchEmployees, ...LIVE_LIST_RETRY })
  if (!session) return <Loading />
  const sorted = [...(employees.data?.rows ?? [])].sort((a, b) => (a.FullName ?? '').localeCompare(b.FullName ?? ''))
  const tab = (m: Mode, label: string) => (
    <button
      type="button"
      role="tab"
      aria-selected={mode === m}
      onClick={() => setMode(m)}
      className={`min-h-11 flex-1 rounded px-4 py-2 font-medium sm:flex-none ${mode === m ? 'bg-sky-800 text-white' : 'bg-white text-slate-700 hover:bg-slate-100'}`}
    >
      {label}
    </button>
  )
  return (
    <div className="mx-auto flex w-full max-w-6xl flex-1 flex-col gap-4 p-3 md:p-6">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h1 className="text-2xl font-bold text-sky-900">{t('hours.title')}</h1>
        <div role="tablist" aria-label={t('hours.mode')} className="flex w-full gap-1 rounded-lg bg-slate-200 p-1 sm:w-auto">
          {tab('week', t('hours.weekMode'))}
          {tab('operator', t('hours.operatorMode'))}
        </div>
      </div>
      {(employees.error ?? employees.failureReason) && (
        <p role="alert" className="text-red-700">
          {t('hours.employeesError', { message: userMessage(employees.error ?? employees.failureReason) })}
        </p>
      )}
      {mode === 'week' ? (
        // names fill in when the employees arrive; the hours need not wait for them
        <WeekView employees={sorted} employeesAsOf={employees.data?.asOf ?? null} />
      ) : employees.isPending ? (
        <Loading />
      ) : (
        <>
          <AsOf asOf={employees.data?.asOf} compact />
          <OperatorMode employees={sorted} division={session.division} onBooked={() => void queryClient.invalidateQueries({ queryKey: hoursKeys.weeks })} />
        </>
      )}
    </div>
  )
}
