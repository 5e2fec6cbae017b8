import { useQuery, useQueryClient } from '@tanstack/react-query'
import { Link, Navigate, useSearchParams } from 'react-router'
import { authorize, checkUser, getSession } from '../api/auth.ts'
import { queryKeys } from '../api/queries.ts'
import { SINGLE_USE } from '../api/queryClient.ts'
import { SETUP_STATE_PREFIX } from '../api/setup.ts'
import { t } from '../i18n/index.ts'
import { HOME, landingAfterSignIn } from '../lib/access.ts'
import { SetupReturn } from './FirstRunSetup.tsx'
import { userMessage } from '../lib/errors.ts'

/** The provider's return: a first-run setup's test sign-in, or a user's sign-in. */
export default function Callback() {
  const [params] = useSearchParams()
  const code = params.get('code')
  const state = params.get('state') ?? ''
  if (code && state.startsWith(SETUP_STATE_PREFIX)) return <SetupReturn code={code} state={state} />
  return <SignIn params={params} />
}

/** A user's sign-in: exchange the code (once), then find where the user belongs. */
function SignIn({ params }: { params: URLSearchParams }) {
  const code = params.get('code')
  const state = params.get('state') ?? ''
  const providerError = params.get('error_description') ?? params.get('error')
  const queryClient = useQueryClient()

  // A code is single-use. As a query keyed by the code the exchange runs once, however often
  // the component mounts (StrictMode mounts twice), and is never retried or refetched.
  const signIn = useQuery({
    queryKey: queryKeys.signIn(code, state),
    queryFn: async () => {
      const session = await authorize(code ?? '', state)
      queryClient.setQueryData(queryKeys.session, session)
      // a re-authentication (ImportData) goes back where it was asked for
      if (session.returnTo) return session.returnTo
      const user = await checkUser()
      // checkUser completes the login process of an activated organization: read the session
      // again so the Dashboard opens with full access
      await queryClient.fetchQuery({ queryKey: queryKeys.session, queryFn: () => getSession(), staleTime: 0 })
      return landingAfterSignIn(user)
    },
    enabled: !!code,
    ...SINGLE_USE,
  })

  const failure = !code ? (providerError ?? t('callback.missingCode')) : userMessage(signIn.error)
  if (failure) {
    return (
      <div role="alert" className="m-auto max-w-md rounded-lg bg-white p-6 text-center shadow">
        <h1 className="mb-2 text-lg font-semibold text-red-800">{t('callback.failed')}</h1>
        <p className="mb-4 text-slate-700">{failure}</p>
        <Link to={HOME} replace className="text-sky-800 underline">
          {t('callback.backHome')}
        </Link>
      </div>
    )
  }
  if (signIn.data) return <Navigate to={signIn.data} replace />
  return (
    <p role="status" className="m-auto text-slate-600">
      {t('callback.working')}
    </p>
  )
}
