import { isAdministrator, reauthUrl } from '../api/auth.ts'
import { useSession } from '../api/queries.ts'
import { AdminPasswordForm } from './AdminNotice.tsx'
import { t } from '../i18n/index.ts'

/**
 * ImportData replaces the local copy, so it asks who is there again: the admin password of the
 * server's configuration, or (when none is set) a listed administrator's second sign-in with
 * Exact Online (docs/administrators.md).
 */
export function Reauth({ returnTo }: { returnTo: string }) {
  const { data: session } = useSession()
  // without a password only the listed users are administrators; with one, only the password counts
  const passwordSet = session?.adminPasswordSet ?? true
  const mayConfirmWithExact = !passwordSet && isAdministrator(session)
  return (
    <div className="mx-auto flex w-full max-w-md flex-col gap-4 p-4 md:p-6">
      <h1 className="text-2xl font-bold text-sky-900">{t('importData.reauthTitle')}</h1>
      <p className="text-slate-700">{t('importData.reauthIntro')}</p>
      {passwordSet && (
        <AdminPasswordForm
          label={t('importData.password')}
          submit={t('importData.confirmPassword')}
          className="flex flex-col gap-3 rounded-lg bg-white p-4 shadow"
        />
      )}
      {mayConfirmWithExact && (
        <a href={reauthUrl(returnTo)} className="min-h-12 rounded-md border border-sky-800 px-4 py-3 text-center font-medium text-sky-900">
          {t('importData.signInAgain')}
        </a>
      )}
      {!passwordSet && !mayConfirmWithExact && <p className="text-slate-700">{t('admin.listedOnly')}</p>}
    </div>
  )
}
