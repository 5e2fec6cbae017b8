import { Suspense } from 'react'
import { Navigate } from 'react-router'
import { useSession } from '../api/queries.ts'
import { HOME, mayEnter } from '../lib/access.ts'
import type { RouteDef } from '../routes/table.ts'
import { Loading } from './Loading.tsx'
import { LoadingScreen } from './LoadingScreen.tsx'

/** Shows the route's screen when the session passes its access, else sends the user Home. */
export function RouteGuard({ route }: { route: RouteDef }) {
  const { data: session, isPending } = useSession()
  if (route.access !== 'public') {
    if (isPending) return <Loading />
    if (!mayEnter(route.access, session, Date.now())) return <Navigate to={HOME} replace />
  }
  const Screen = route.screen
  return (
    <Suspense fallback={<LoadingScreen />}>
      <Screen />
    </Suspense>
  )
}
