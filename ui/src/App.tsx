import { Navigate, Route, Routes } from 'react-router'
import { useSession } from './api/queries.ts'
import { AppShell } from './components/AppShell.tsx'
import { ErrorBoundary } from './components/ErrorBoundary.tsx'
import { ErrorToasts } from './components/ErrorToasts.tsx'
import { Loading } from './components/Loading.tsx'
import { RouteGuard } from './components/RouteGuard.tsx'
import { fallbackPath } from './lib/access.ts'
import { isNarrowNow } from './lib/media.ts'
import { hasRoute, routes } from './routeTable.ts'
import { SessionProvider } from './state/session.tsx'

export default function App() {
  return (
    <SessionProvider>
      <AppShell>
        <ErrorBoundary>
          <Routes>
            {routes.map((r) => (
              <Route key={r.path} path={r.path} element={<RouteGuard route={r} />} />
            ))}
            <Route path="*" element={<UnknownPath />} />
          </Routes>
        </ErrorBoundary>
      </AppShell>
      <ErrorToasts />
    </SessionProvider>
  )
}

/** An unknown path goes where an uncaught error would (spec §2). */
function UnknownPath() {
  const { data: session, isPending } = useSession()
  if (isPending) return <Loading />
  return <Navigate to={fallbackPath(session, isNarrowNow(), hasRoute)} replace />
}
