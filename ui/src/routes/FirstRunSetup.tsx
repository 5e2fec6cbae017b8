import { useQuery } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import { Link } from 'react-router'
import { loginUrl } from '../api/auth.ts'
import { queryKeys } from '../api/queries.ts'
import { SINGLE_USE } from '../api/queryClient.ts'
import { finishSetup, getSetup, hostChoices, testSetup, type SetupNeeded, type SetupStatus } from '../api/setup.ts'
import { inputClass, labelClass } from '../components/ui/Field.tsx'
import { t } from '../i18n/index.ts'
import { HOME } from '../lib/access.ts'
import { userMessage } from '../lib/errors.ts'
import { Button } from '../components/ui/Button.tsx'
import { Select } from '../components/ui/Select.tsx'

/**
 * First run: the server has no Exact Online app yet. A local administrator registers the app
 * in the Exact App Center with the redirect URL shown here, then enters the setup code (from the
 * server's console), the client id, the secret and the country; the server tests them
 * with a sign-in at Exact before it writes them.
 */
/** What was typed, kept in this tab while the browser is at Exact (never the code or the secret). */
const TYPED_KEY = 'esm.setup.typed'

function typedBefore(): { clientId?: string; baseUrl?: string } {
  try {
    return JSON.parse(sessionStorage.getItem(TYPED_KEY) ?? '{}') as { clientId?: string; baseUrl?: string }
  } catch {
    return {}
  }
}

export function FirstRunSetup({ status }: { status: SetupNeeded }) {
  const hosts = hostChoices(status)
  // back from a test that failed at Exact, the form is as it was left
  const [before] = useState(typedBefore)
  const [setupCode, setSetupCode] = useState('')
  const [clientId, setClientId] = useState(before.clientId || status.clientId)
  const [clientSecret, setClientSecret] = useState('')
  const [baseUrl, setBaseUrl] = useState(before.baseUrl || status.baseUrl.replace(/\/+$/, '') || hosts[0]?.url || '')
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)

  async function submit(e: FormEvent) {
    e.preventDefault()
    setError(null)
    setBusy(true)
    try {
      const { authorizeUrl } = await testSetup({ setupCode, clientId, clientSecret, baseUrl })
      try {
        sessionStorage.setItem(TYPED_KEY, JSON.stringify({ clientId, baseUrl }))
      } catch {
        // storage blocked: the form starts from the server's values again
      }
      window.location.assign(authorizeUrl)
    } catch (err) {
      setError(userMessage(err))
      setBusy(false)
    }
  }

  return (
    <section aria-labelledby="setup-title" className="w-full max-w-lg rounded-xl bg-white p-6 text-left shadow">
      <h1 id="setup-title" className="text-xl font-semibold text-sky-900">
        {t('setup.title')}
      </h1>
      <p className="mt-2 text-sm text-slate-700">{t('setup.intro')}</p>
      <ol className="mt-3 list-decimal space-y-1 pl-5 text-sm text-slate-700">
        <li>{t('setup.stepRegister')}</li>
        <li>
          {t('setup.stepRedirect')}
          <code data-testid="setup-redirect" className="mt-1 block rounded bg-slate-100 px-2 py-1 break-all text-slate-900 select-all">
            {status.redirectUrl}
          </code>
        </li>
        <li>{t('setup.stepCode')}</li>
      </ol>
      <form onSubmit={submit} className="mt-4 flex flex-col gap-3">
        <label className={labelClass}>
          {t('setup.code')}
          <input
            className={inputClass}
            value={setupCode}
            onChange={(e) => setSetupCode(e.target.value)}
            autoComplete="off"
            spellCheck={false}
            placeholder="XXXX-XXXX-XXXX"
            required
          />
        </label>
        <label className={labelClass}>
          {t('setup.country')}
          <Select value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)}>
            {hosts.map((h) => (
              <option key={h.url} value={h.url}>
                {h.name} ({h.url.replace(/^https?:\/\//, '')})
              </option>
            ))}
          </Select>
        </label>
        <label className={labelClass}>
          {t('setup.clientId')}
          <input className={inputClass} value={clientId} onChange={(e) => setClientId(e.target.value)} autoComplete="off" spellCheck={false} required />
        </label>
        <label className={labelClass}>
          {t('setup.clientSecret')}
          <input className={inputClass} type="password" value={clientSecret} onChange={(e) => setClientSecret(e.target.value)} autoComplete="off" required />
        </label>
        {error && (
          <p role="alert" className="rounded bg-red-50 p-3 text-sm text-red-800">
            {error}
          </p>
        )}
        <Button type="submit" variant="primary" disabled={busy}>
          {busy ? t('home.redirecting') : t('setup.test')}
        </Button>
        <p className="text-xs text-slate-600">{t('setup.writes', { file: status.settingsFile })}</p>
      </form>
    </section>
  )
}

/** How often the page asks whether the restarted server is back. */
const RESTART_POLL_MS = 1000

/** The server answers again, set up and restarted with the new settings. */
function isBack(s: SetupStatus | undefined): boolean {
  return s?.needed === false && !s.restarting
}

/**
 * The test sign-in came back from Exact Online: the server exchanges the code with the entered
 * settings (the real test), saves them and restarts; then the user signs in as usual.
 */
export function SetupReturn({ code, state }: { code: string; state: string }) {
  // A code is single-use: exchanged once however often this mounts, never retried.
  const finish = useQuery({
    queryKey: queryKeys.setupFinish(code, state),
    queryFn: () => finishSetup(code, state),
    ...SINGLE_USE,
  })
  // After the restart the server answers again and no longer needs setting up.
  const back = useQuery({
    queryKey: queryKeys.setup,
    queryFn: getSetup,
    enabled: !!finish.data,
    refetchInterval: (q) => (isBack(q.state.data) ? false : RESTART_POLL_MS),
    retry: true,
    retryDelay: RESTART_POLL_MS,
  })
  const ready = isBack(back.data)

  if (finish.error) {
    return (
      <div role="alert" className="m-auto max-w-md rounded-lg bg-white p-6 text-center shadow">
        <h1 className="mb-2 text-lg font-semibold text-red-800">{t('setup.failed')}</h1>
        <p className="mb-4 text-slate-700">{userMessage(finish.error)}</p>
        <Link to={HOME} replace className="text-sky-800 underline">
          {t('callback.backHome')}
        </Link>
      </div>
    )
  }
  if (!finish.data) {
    return (
      <p role="status" className="m-auto text-slate-600">
        {t('setup.finishing')}
      </p>
    )
  }
  return (
    <section className="m-auto max-w-md rounded-lg bg-white p-6 text-center shadow">
      <h1 className="mb-2 text-lg font-semibold text-green-800">{t('setup.done')}</h1>
      <p className="mb-4 text-slate-700">{t('setup.doneDetail', { user: finish.data.userName || '?', file: finish.data.settingsFile })}</p>
      {ready ? (
        <Button type="button" variant="primary" onClick={() => window.location.assign(loginUrl())}>
          {t('setup.signIn')}
        </Button>
      ) : (
        <p role="status" className="text-slate-600">
          {t('setup.restarting')}
        </p>
      )}
    </section>
  )
}
