import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { isAdministrator, reauthUrl, reauthWithPassword } from '../api/auth.ts'
import { queryKeys, useSession } from '../api/queries.ts'
import { t } from '../i18n/index.ts'

/**
 * ImportData replaces the local copy, so it asks who is there again: the admin password of the
 * server's configuration, or (when none is set) a listed administrator's second sign-in with
 * Exact Online (docs/administrators.md).
 */
export function Reauth({ returnTo }: { returnTo: string }) {
  const queryClient = useQueryClient()
  const { data: session } = useSession()
  // without a password only the listed users are administrators; with one, only the password counts
  const passwordSet = session?.adminPasswordSet ?? true
  const mayConfirmWithExact = !passwordSet && isAdministrator(session)
  const [password, setPassword] = useState('')
  const check = useMutation({
    mutationFn: () => reauthWithPassword(password),
    onSuccess: (session) => queryClient.setQueryData(queryKeys.session, session),
  })
  return (
    <div className="mx-auto flex w-full max-w-md flex-col gap-4 p-4 md:p-6">
      <h1 className="text-2xl font-bold text-sky-900">{t('importData.reauthTitle')}</h1>
      <p className="text-slate-700">{t('importData.reauthIntro')}</p>
      {passwordSet && <form
        className="flex flex-col gap-3 rounded-lg bg-white p-4 shadow"
        onSubmit={(e) => {
          e.preventDefault()
          if (password) check.mutate()
        }}
      >
        <label className="flex flex-col gap-1 font-medium">
          {t('importData.password')}
          <input
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            className="min-h-12 rounded-md border border-slate-300 px-3 font-normal focus:ring-2 focus:ring-sky-600 focus:outline-none"
          />
        </label>
        <button type="submit" disabled={!password || check.isPending} className="min-h-12 rounded-md bg-sky-800 px-4 font-medium text-white disabled:opacity-60">
          {t('importData.confirmPassword')}
        </button>
        {check.error && (
          <p role="alert" className="text-red-700">
            {check.error.message}
          </p>
        )}
      </form>}
      {mayConfirmWithExact && (
        <a href={reauthUrl(returnTo)} className="min-h-12 rounded-md border border-sky-800 px-4 py-3 text-center font-medium text-sky-900">
          {t('importData.signInAgain')}
        </a>
      )}
      {!passwordSet && !mayConfirmWithExact && <p className="text-slate-700">{t('admin.listedOnly')}</p>}
    </div>
  )
}
