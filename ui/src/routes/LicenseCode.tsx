import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { useNavigate, useSearchParams } from 'react-router'
import { activateLicence } from '../api/auth.ts'
import { queryKeys, useSession } from '../api/queries.ts'
import { t } from '../i18n/index.ts'
import { formatDate } from '../lib/dateTime.ts'
import { DASHBOARD } from '../lib/access.ts'
import { userMessage } from '../lib/errors.ts'

/** Activates the organization named by ?division=&customer= with a licence code. */
export default function LicenseCode() {
  const [params] = useSearchParams()
  const { data: session } = useSession()
  const division = Number(params.get('division') ?? session?.division ?? NaN)
  const customer = params.get('customer') ?? session?.customer_name ?? ''
  // the chosen division's own company (the licence's customer may hold several)
  const company = session?.divisions.find((d) => d.division === division)?.name ?? ''
  // the session's organization, already activated: its licence's status and end
  const active = !!session?.activated && session.division === division
  const [code, setCode] = useState('')
  const queryClient = useQueryClient()
  const navigate = useNavigate()

  const activation = useMutation({
    mutationFn: () => activateLicence(division, customer, code.trim()),
    onSuccess: async () => {
      // the session is now registered (full access): load it before the Dashboard's guard asks
      await queryClient.invalidateQueries({ queryKey: queryKeys.session })
      navigate(`${DASHBOARD}?division=${division}`, { replace: true })
    },
  })

  if (!(division > 0)) {
    return (
      <p role="alert" className="m-auto p-6 text-slate-700">
        {t('licence.missingOrganization')}
      </p>
    )
  }

  return (
    <div className="flex flex-1 items-start justify-center p-6 md:items-center">
      <form
        className="w-full max-w-md rounded-xl bg-white p-6 shadow"
        onSubmit={(e) => {
          e.preventDefault()
          if (code.trim()) activation.mutate()
        }}
      >
        <h1 className="text-2xl font-bold text-sky-900">{t('licence.title')}</h1>
        <p className="mt-1 text-slate-600">{t('licence.intro')}</p>
        <dl className="mt-4 grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-sm">
          {company && (
            <>
              <dt className="text-slate-500">{t('licence.company')}</dt>
              <dd data-testid="licence-company">{company}</dd>
            </>
          )}
          <dt className="text-slate-500">{t('licence.organization')}</dt>
          <dd data-testid="licence-customer">{customer}</dd>
          <dt className="text-slate-500">{t('licence.division')}</dt>
          <dd data-testid="licence-division">{division}</dd>
          <dt className="text-slate-500">{t('licence.status')}</dt>
          <dd data-testid="licence-status">
            {!active
              ? t('licence.notActive')
              : session.licenceExpires
                ? t('licence.activeUntil', { date: formatDate(session.licenceExpires) })
                : t('licence.activeNoEnd')}
          </dd>
        </dl>
        <label htmlFor="licence-code" className="mt-6 block text-sm font-medium">
          {t('licence.code')}
        </label>
        <textarea
          id="licence-code"
          name="code"
          rows={3}
          required
          autoFocus
          spellCheck={false}
          autoComplete="off"
          value={code}
          onChange={(e) => setCode(e.target.value)}
          aria-invalid={activation.isError}
          aria-describedby={activation.isError ? 'licence-error' : undefined}
          className="mt-1 w-full rounded border border-slate-300 p-2 font-mono text-sm break-all focus:border-sky-700 focus:outline-none"
        />
        {activation.isError && (
          <p id="licence-error" role="alert" className="mt-2 text-sm text-red-700">
            {userMessage(activation.error)}
          </p>
        )}
        <button
          type="submit"
          disabled={activation.isPending || !code.trim()}
          className="mt-4 w-full rounded-md bg-sky-800 px-4 py-2 font-medium text-white hover:bg-sky-900 disabled:opacity-60"
        >
          {activation.isPending ? t('licence.activating') : t('licence.activate')}
        </button>
      </form>
    </div>
  )
}
