import { useSession } from '../../api/queries.ts'
import { Loading } from '../../components/Loading.tsx'
import { t } from '../../i18n/index.ts'
import { hasFullAccess } from '../../lib/access.ts'
import { RecentTransfers } from './RecentTransfers.tsx'
import { TransferForm } from './TransferForm.tsx'

/** Moving stock between warehouses and storage locations, and the transfers of late. */
export default function Transfers() {
  const { data: session } = useSession()
  if (!session) return <Loading />
  return (
    <div className="mx-auto flex w-full max-w-3xl flex-1 flex-col gap-4 p-3 md:p-6">
      <h1 className="text-2xl font-bold text-sky-900">{t('transfers.title')}</h1>
      {!hasFullAccess(session) ? (
        <p role="status" className="rounded bg-amber-50 p-4 text-amber-900">
          {t('dashboard.notActivated')}
        </p>
      ) : (
        <>
          <TransferForm />
          <RecentTransfers />
        </>
      )}
    </div>
  )
}
