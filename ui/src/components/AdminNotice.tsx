// What a user who is not an administrator sees where an administrator action is: who may do it,
// and, where an admin password is set, the confirmation inline (an administrator for 15 minutes).
import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { reauthWithPassword, type Session } from '../api/auth.ts'
import { queryKeys } from '../api/queries.ts'
import { t } from '../i18n/index.ts'
import { userMessage } from '../lib/errors.ts'

export function AdminNotice({ session, what }: { session: Session; what: string }) {
  return (
    <div className="flex flex-col gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950" data-testid="admin-notice">
      <p>{t('admin.readOnly', { what })}</p>
      {session.adminPasswordSet ? (
        <AdminPasswordForm label={t('admin.password')} submit={t('admin.confirm')} className="flex flex-wrap items-end gap-2" />
      ) : (
        <p>{t('admin.listedOnly')}</p>
      )}
    </div>
  )
}

/** The admin password, confirmed with the server: the session it answers is the one kept. */
export function AdminPasswordForm({ label, submit, className }: { label: string; submit: string; className: string }) {
  const queryClient = useQueryClient()
  const [password, setPassword] = useState('')
  const confirm = useMutation({
    mutationFn: () => reauthWithPassword(password),
    onSuccess: (s) => {
      setPassword('')
      queryClient.setQueryData(queryKeys.session, s)
    },
  })
  return (
    <form
      className={className}
      onSubmit={(e) => {
        e.preventDefault()
        if (password) confirm.mutate()
      }}
    >
      <label className="flex flex-col gap-1 font-medium">
        {label}
        <input
          type="password"
          autoComplete="current-password"
          value={password}
          onChange={(e) => setPassword(e.target.value)}
          className="min-h-12 rounded-md border border-slate-300 bg-white px-3 font-normal focus:ring-2 focus:ring-sky-600 focus:outline-none"
        />
      </label>
      <button
        type="submit"
        disabled={!password || confirm.isPending}
        className="min-h-12 rounded-md bg-sky-800 px-4 font-medium text-white disabled:opacity-60"
      >
        {submit}
      </button>
      {confirm.error && (
        <p role="alert" className="w-full text-red-700">
          {userMessage(confirm.error)}
        </p>
      )}
    </form>
  )
}
