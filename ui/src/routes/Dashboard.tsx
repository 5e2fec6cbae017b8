import { useSession, useSyncEndpoints, useSyncStatus } from '../api/queries.ts'
import { ActivationNotice } from '../components/ActivationNotice.tsx'
import { Loading } from '../components/Loading.tsx'
import { SyncButton } from '../components/SyncButton.tsx'
import { StockTable } from '../components/StockTable.tsx'
import { t } from '../i18n/index.ts'
import { hasFullAccess, organizationName } from '../lib/access.ts'
import { userMessage } from '../lib/errors.ts'

/** The organization, Sync Data, and the Table view of stock in all locations. */
export default function Dashboard() {
  const { data: session } = useSession()
  const full = hasFullAccess(session)
  const endpoints = useSyncEndpoints(full)
  const status = useSyncStatus(full)

  if (!session) return <Loading />
  return (
    <div className="mx-auto flex w-full max-w-[1600px] flex-1 flex-col gap-4 p-4 md:p-6">
      <div className="flex flex-wrap items-start justify-between gap-4">
        <div>
          <h1 className="text-2xl font-bold text-sky-900">{organizationName(session)}</h1>
          <p className="text-sm text-slate-600" data-testid="dashboard-division">
            {t('dashboard.division', { division: session.division })}
          </p>
        </div>
        {full && endpoints.data && <SyncButton endpoints={endpoints.data} running={!!status.data?.running} />}
      </div>
      {!full && <ActivationNotice session={session} />}
      {(endpoints.error ?? status.error) && (
        <p role="alert" className="text-red-700">
          {userMessage(endpoints.error ?? status.error)}
        </p>
      )}
      {full && <StockTable division={session.division} />}
    </div>
  )
}
