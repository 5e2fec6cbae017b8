import { useSearchParams } from 'react-router'
import { useSession } from '../../api/queries.ts'
import { Loading } from '../../components/Loading.tsx'
import { t } from '../../i18n/index.ts'
import { hasFullAccess } from '../../lib/access.ts'
import { CountList } from './CountList.tsx'
import { CountView } from './CountView.tsx'

/**
 * Stock counts that several people count together: the list with a new count, or one count
 * (`?id=`, in the address so a reload or a shared link opens it) to count, review and send.
 */
export default function Counts() {
  const { data: session } = useSession()
  const [params, setParams] = useSearchParams()
  const id = params.get('id')?.trim() ?? ''
  const open = (next: string | null) =>
    setParams((prev) => {
      const p = new URLSearchParams(prev)
      if (next) p.set('id', next)
      else p.delete('id')
      return p
    })
  if (!session) return <Loading />
  return (
    <div className="mx-auto flex w-full max-w-6xl flex-1 flex-col gap-4 p-3 md:p-6">
      {!hasFullAccess(session) ? (
        <>
          <h1 className="text-2xl font-bold text-sky-900">{t('counts.title')}</h1>
          <p role="status" className="rounded bg-amber-50 p-4 text-amber-900">
            {t('dashboard.notActivated')}
          </p>
        </>
      ) : id ? (
        <CountView key={id} id={id} session={session} onClosed={() => open(null)} />
      ) : (
        <CountList session={session} onStarted={open} />
      )}
    </div>
  )
}
