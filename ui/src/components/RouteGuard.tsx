import { Suspense } from 'react'
import { Navigate } from 'react-router'
import { useSession } from '../api/queries.ts'
import { HOME, mayEnter } from '../lib/access.ts'
import { Reauth } from '../routes/importData/Reauth.tsx'
import type { RouteDef } from '../routes/table.ts'
import { Loading } from './Loading.tsx'
import { LoadingScreen } from './LoadingScreen.tsx'

/** Shows the route's screen when the session passes its access, else sends the user Home (or asks ImportData's re-authentication). */
export function RouteGuard({ route }: { route: RouteDef }) {
  const { data: session, isPending } = useSession()
  if (route.access !== 'public') {
    if (isPending) return <Loading />
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
