import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import type { Session } from '../api/auth.ts'
import type { Schema } from '../api/contract.ts'
import { endSessions, getSessions } from '../api/org.ts'
import { ConfirmDialog } from '../components/ConfirmDialog.tsx'
import { t } from '../i18n/index.ts'
import { formatServerTime } from '../lib/dateTime.ts'
import { userMessage } from '../lib/errors.ts'

type UserSessions = Schema<'UserSessions'>

const KEY = ['sessions'] as const

/**
 * An administrator's list of who is signed in to the organization, with "end sessions" for a
 * worker who left or a handheld that was lost: every browser and handheld of that user is signed
 * out at its next request.
 */
export function SignedInUsers({ session }: { session: Session }) {
  const queryClient = useQueryClient()
  const users = useQuery({ queryKey: KEY, queryFn: getSessions, retry: false })
  const [asking, setAsking] = useState<UserSessions | null>(null)
  const end = useMutation({
    mutationFn: (u: UserSessions) => endSessions(u.user),
    onSettled: () => queryClient.invalidateQueries({ queryKey: KEY }),
  })
  const name = (u: UserSessions) => u.full_name || u.user_name
  return (
    <section className="flex flex-col gap-3 rounded-lg bg-white p-4 shadow" aria-labelledby="gs-sessions" data-testid="signed-in-users">
      <h2 id="gs-sessions" className="font-semibold">
        {t('admin.sessionsTitle')}
      </h2>
      <p className="text-sm text-slate-600">{t('admin.sessionsIntro')}</p>
      <ul className="flex flex-col divide-y divide-slate-200">
        {(users.data ?? []).map((u) => (
          <li key={u.user} className="flex flex-wrap items-center justify-between gap-2 py-2">
            <div className="flex min-w-0 flex-col">
              <span className="font-medium break-words">
                {name(u)} {u.user_name === session.userName && <span className="text-slate-600">{t('admin.you')}</span>}
              </span>
              <span className="text-sm break-all text-slate-600">{u.user_name}</span>
              <span className="text-sm text-slate-600">{t('admin.sessionsCount', { count: u.sessions, when: formatServerTime(u.last_seen) })}</span>
            </div>
            {u.user_name !== session.userName && (
              <button
                type="button"
                onClick={() => setAsking(u)}
                disabled={end.isPending}
                className="min-h-11 rounded-md border border-red-700 px-4 font-medium text-red-800 disabled:opacity-60"
              >
                {t('admin.endSessions', { name: name(u) })}
              </button>
            )}
          </li>
        ))}
      </ul>
      {end.isSuccess && (
        <p role="status" className="text-sm text-emerald-800">
          {t('admin.ended', { count: end.data.ended, name: end.variables ? name(end.variables) : '' })}
        </p>
      )}
      {(users.error ?? end.error) && (
        <p role="alert" className="text-sm text-red-700">
          {userMessage(users.error ?? end.error)}
        </p>
      )}
      {asking && (
        <ConfirmDialog
          message={t('admin.endConfirm', { name: name(asking) })}
          noLabel={t('delete.no')}
          yesLabel={t('admin.endSessions', { name: name(asking) })}
          onNo={() => setAsking(null)}
          onYes={() => {
            end.mutate(asking)
            setAsking(null)
          }}
        />
      )}
    </section>
  )
}
