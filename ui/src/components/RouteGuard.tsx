import { Suspense } from 'react'
import { Navigate } from 'react-router'
import { useSession } from '../api/queries.ts'
import { HOME, mayEnter, needsActivation } from '../lib/access.ts'
import { Reauth } from '../routes/importData/Reauth.tsx'
import type { RouteDef } from '../routes/table.ts'
import { ActivationNotice } from './ActivationNotice.tsx'
import { Loading } from './Loading.tsx'
import { LoadingScreen } from './LoadingScreen.tsx'

/**
 * Shows the route's screen when the session passes its access. Else: a signed-in user whose
 * organization is not activated is shown the way to activation (the screen's calls would all be
 * refused), ImportData asks for its re-authentication, and anyone else goes Home.
 */
export function RouteGuard({ route }: { route: RouteDef }) {
  const { data: session, isPending } = useSession()
  if (route.access !== 'public') {
    if (isPending) return <Loading />
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
