import { useMutation, useQueryClient } from '@tanstack/react-query'
import type { Session } from '../api/auth.ts'
import { updateUserPreferences } from '../api/org.ts'
import { queryKeys, useSession } from '../api/queries.ts'
import { LoadingScreen } from '../components/LoadingScreen.tsx'
import { LANGUAGES, setLanguage, t, useLanguage, type Language } from '../i18n/index.ts'
import { userMessage } from '../lib/errors.ts'

/** The signed-in user's own settings: who they are, and the language of the app. */
export default function AccountSettings() {
  const { data: session } = useSession()
  const language = useLanguage()
  const queryClient = useQueryClient()
  const save = useMutation({
    mutationFn: (lang: Language) => {
      const s = session as Session
      return updateUserPreferences(s.organizationDetails.uuid, { ...s.userPreferences, language: lang })
    },
    onSuccess: ({ preferences }) => {
      queryClient.setQueryData<Session>(queryKeys.session, (s) => (s ? { ...s, userPreferences: preferences } : s))
    },
  })

  if (!session) return <LoadingScreen />
  const row = 'grid grid-cols-[10rem_1fr] gap-2 py-1'
  return (
    <div className="mx-auto flex w-full max-w-2xl flex-col gap-6 p-4 md:p-6">
      <h1 className="text-2xl font-bold text-sky-900">{t('account.title')}</h1>
      <section aria-labelledby="account-user" className="rounded-lg bg-white p-4 shadow">
        <h2 id="account-user" className="mb-2 font-semibold">
          {t('account.user')}
        </h2>
        <dl className="text-sm">
          <div className={row}>
            <dt className="text-slate-500">{t('account.name')}</dt>
            <dd>{session.fullName}</dd>
          </div>
          <div className={row}>
            <dt className="text-slate-500">{t('account.email')}</dt>
            <dd>{session.userName}</dd>
          </div>
          <div className={row}>
            <dt className="text-slate-500">{t('account.organization')}</dt>
            <dd>
              {session.customer_name} ({session.division})
            </dd>
          </div>
        </dl>
      </section>
      <section aria-labelledby="account-language" className="rounded-lg bg-white p-4 shadow">
        <fieldset>
          <legend id="account-language" className="font-semibold">
            {t('account.language')}
          </legend>
          <p className="mb-3 text-sm text-slate-600">{t('account.languageHelp')}</p>
          <div className="flex flex-wrap gap-4">
            {LANGUAGES.map((lang) => (
              <label key={lang} className="flex cursor-pointer items-center gap-2 rounded border border-slate-200 px-3 py-2 hover:bg-slate-50">
                <input
                  type="radio"
                  name="language"
                  value={lang}
                  checked={language === lang}
                  onChange={() => {
                    // the app follows at once; the choice is kept for the user's other browsers
                    if (session.organizationDetails.uuid !== 'notInitialized') save.mutate(lang)
                    setLanguage(lang)
                  }}
                />
                {t(`language.${lang}`)}
              </label>
            ))}
          </div>
        </fieldset>
        {save.isError && (
          <p role="alert" className="mt-2 text-sm text-red-700">
            {userMessage(save.error)}
          </p>
        )}
      </section>
    </div>
  )
}
