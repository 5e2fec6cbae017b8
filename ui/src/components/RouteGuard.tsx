import { Suspense, useEffect } from 'react'
import { Navigate } from 'react-router'
import { ApiError, isNetworkFailure, NETWORK_ERROR_STATUS, TIMEOUT_CODE } from '../api/client.ts'
import { useSession } from '../api/queries.ts'
import { t } from '../i18n/index.ts'
import { useOffline } from '../state/reachability.ts'
import { HOME, mayEnter, needsActivation } from '../lib/access.ts'
import { Reauth } from './Reauth.tsx'
import type { RouteDef } from '../routeTable.ts'
import { ActivationNotice } from './ActivationNotice.tsx'
import { Loading } from './Loading.tsx'
import { LoadingScreen } from './LoadingScreen.tsx'

/**
 * Shows the route's screen when the session passes its access. Else: a signed-in user whose
 * organization is not activated is shown the way to activation (the screen's calls would all be
 * refused), ImportData asks for its re-authentication, and anyone else goes Home.
 */
export function RouteGuard({ route }: { route: RouteDef }) {
  const { data: session, isPending, error, refetch, isFetching } = useSession()
  const offline = useOffline()
  // opened without the server: no session, or the last one this browser had (`Session.offline`),
  // with which only screens made for it open
  const unreachedError =
    !session && isNetworkFailure(error)
      ? error
      : session?.offline && !route.offline
        ? new ApiError(NETWORK_ERROR_STATUS, TIMEOUT_CODE, t('error.network'))
        : null
  const unconfirmed = (!session && isNetworkFailure(error)) || !!session?.offline
  // the server answers again (the offline banner's check): the session is asked for at once
  useEffect(() => {
    if (!offline && unconfirmed) void refetch()
  }, [offline, unconfirmed, refetch])
  if (route.access !== 'public') {
    if (isPending) return <Loading />
    // opened without the server (the kept shell): the catalogue's message on the screen asked
    // for, which comes back by itself when the server answers, rather than Home
    if (unreachedError) {
      return (
        <div className="mx-auto w-full max-w-3xl p-4 md:p-6">
          <p role="alert" data-testid="unreached" className="mb-4 text-slate-800">
            {unreachedError.message} ({unreachedError.code})
          </p>
          <button
            type="button"
            className="min-h-11 rounded bg-sky-700 px-4 py-2 text-white disabled:opacity-60"
            disabled={isFetching}
            onClick={() => void refetch()}
          >
            {t('offline.retry')}
          </button>
        </div>
      )
    }
    if (needsActivation(route.access, session)) {
      return (
        <div className="mx-auto w-full max-w-3xl p-4 md:p-6">
          <ActivationNotice session={session} />
        </div>
      )
    }
    // ImportData's fresh re-authentication is asked for here rather than sending a full user Home
    if (route.access === 'importData' && mayEnter('full', session, Date.now()) && !mayEnter(route.access, session, Date.now())) {
      return <Reauth returnTo={route.path} />
    }
    if (!mayEnter(route.access, session, Date.now())) return <Navigate to={HOME} replace />
  }
  const Screen = route.screen
  return (
    <Suspense fallback={<LoadingScreen />}>
      <Screen />
    </Suspense>
  )
}
