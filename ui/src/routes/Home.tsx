import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { Navigate, useLocation } from 'react-router'
import { loginUrl } from '../api/auth.ts'
import { queryKeys, useSession } from '../api/queries.ts'
import { getSetup, neededSetup } from '../api/setup.ts'
import { BrandName } from '../components/BrandName.tsx'
import { Loading } from '../components/Loading.tsx'
import { ServerStatus } from '../components/ServerStatus.tsx'
import { t } from '../i18n/index.ts'
import { signedInLanding } from '../lib/access.ts'
import type { HomeNotice } from '../state/session.tsx'
import { FirstRunSetup } from './FirstRunSetup.tsx'

/** The start page: sign in, or go on when already signed in. */
export default function Home() {
  const { data: session, isPending } = useSession()
  const notice = (useLocation().state as HomeNotice | null)?.notice
  const [leaving, setLeaving] = useState(false)

  // An older server without the route, or one that cannot be asked: the sign-in as before.
  const setup = useQuery({ queryKey: queryKeys.setup, queryFn: getSetup, retry: false })

  if (isPending || setup.isPending) return <Loading />
  const landing = signedInLanding(session)
  if (landing) return <Navigate to={landing} replace />
  const needed = neededSetup(setup.data)
  if (needed) {
    return (
      <div className="flex flex-1 flex-col items-center justify-center gap-8 p-6">
        <p className="text-3xl font-bold text-sky-900">
          <BrandName />
        </p>
        <FirstRunSetup status={needed} />
        <ServerStatus />
      </div>
    )
  }

  return (
    <div className="flex flex-1 flex-col items-center justify-center gap-8 p-6">
      <div className="w-full max-w-sm rounded-xl bg-white p-8 text-center shadow">
        <h1 className="text-3xl font-bold text-sky-900">
          <BrandName />
        </h1>
        <p className="mt-2 text-slate-600">{t('home.tagline')}</p>
        {notice && (
          <p role="alert" className="mt-4 rounded bg-amber-50 p-3 text-sm text-amber-900">
            {notice}
          </p>
        )}
        <button
          type="button"
          disabled={leaving}
          onClick={() => {
            setLeaving(true)
            window.location.assign(loginUrl())
          }}
          className="mt-6 w-full rounded-md bg-sky-800 px-4 py-3 font-medium text-white hover:bg-sky-900 disabled:opacity-60"
        >
          {leaving ? t('home.redirecting') : t('home.signIn')}
        </button>
      </div>
      <ServerStatus />
    </div>
  )
}
