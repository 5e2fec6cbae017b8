import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import type { Session } from '../../api/auth.ts'
import { countSessionKeys } from '../../api/queries.ts'
import { AdminPasswordForm } from '../../components/AdminNotice.tsx'
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx'
import { Section } from '../../components/ui/Section.tsx'
import { t, tCount } from '../../i18n/index.ts'
import { userMessage } from '../../lib/errors.ts'
import { removeCount, reopenCount, sendCount } from './api.ts'
import { mayProcess, mayRemove, type CountSummary, type ReviewPage } from './logic.ts'
import { Button } from '../../components/ui/Button.tsx'

type Asking = 'draft' | 'process' | 'remove' | null

/**
 * Why a user who is not an administrator cannot process the count, as AdminNotice says it for
 * settings: who may, and the admin password inline where one is set.
 */
export function ProcessNotice({ session }: { session: Session }) {
  return (
    <div className="flex flex-col gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950" data-testid="admin-notice">
      <p>{t('counts.processAdminOnly')}</p>
      {session.adminPasswordSet ? (
        <AdminPasswordForm label={t('admin.password')} submit={t('admin.confirm')} className="flex flex-wrap items-end gap-2" />
      ) : (
        <p>{t('admin.listedOnly')}</p>
      )}
    </div>
  )
}

/**
 * Sending the count to Exact Online (a draft, or processed by an administrator), removing it,
 * and reopening one Exact refused. Sending and removing are asked about first.
 */
export function CountActions({
  count,
  session,
  totals,
  onRemoved,
}: {
  count: CountSummary
  session: Session
  totals: ReviewPage | null
  onRemoved: () => void
}) {
  const queryClient = useQueryClient()
  const [asking, setAsking] = useState<Asking>(null)
  const admin = mayProcess(session)
  const settled = (c: CountSummary) => {
    queryClient.setQueryData(countSessionKeys.one(c.id), c)
    void queryClient.invalidateQueries({ queryKey: countSessionKeys.list(session.division) })
  }
  const send = useMutation({ mutationFn: (mode: 'draft' | 'process') => sendCount(count.id, mode), onSuccess: settled })
  const reopen = useMutation({ mutationFn: () => reopenCount(count.id), onSuccess: settled })
  const remove = useMutation({
    mutationFn: () => removeCount(count.id),
    onSuccess: () => {
      queryClient.removeQueries({ queryKey: countSessionKeys.one(count.id) })
      void queryClient.invalidateQueries({ queryKey: countSessionKeys.list(session.division) })
      onRemoved()
    },
  })
  const error = send.error ?? reopen.error ?? remove.error
  const counting = count.status === 'counting'
  const empty = count.lineCount === 0
  const busy = send.isPending || reopen.isPending || remove.isPending
  if (!counting && !mayRemove(count.status)) return null

  // what Exact leaves as it is: the rows expected here that nobody counted
  const notCounted = totals && totals.notCounted > 0 ? <p className="text-slate-700">{tCount('counts.notCountedStays', totals.notCounted)}</p> : null
  return (
    <Section title={t('counts.actionsTitle')} titleId="count-actions-title">
      {counting && (
        <>
          <div className="flex flex-wrap gap-2">
            <Button type="button" variant="primary" disabled={busy || empty} onClick={() => setAsking('draft')}>
              {t('counts.sendDraft')}
            </Button>
            <Button type="button" variant="primary" disabled={busy || empty || !admin} onClick={() => setAsking('process')}>
              {t('counts.process')}
            </Button>
          </div>
          {empty && <p className="text-sm text-slate-600">{t('counts.nothingToSend')}</p>}
          <p className="text-sm text-slate-600">{t('counts.sendHelp')}</p>
          {!admin && <ProcessNotice session={session} />}
        </>
      )}
      <div className="flex flex-wrap gap-2">
        {count.status === 'refused' && (
          <Button type="button" variant="primary" disabled={busy} onClick={() => reopen.mutate()}>
            {t('counts.reopen')}
          </Button>
        )}
        <Button type="button" variant="secondary" disabled={busy} onClick={() => setAsking('remove')}>
          {t('counts.remove')}
        </Button>
      </div>
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {userMessage(error)}
        </p>
      )}
      {asking === 'draft' && (
        <ConfirmDialog
          message={tCount('counts.confirmDraft', count.lineCount)}
          noLabel={t('counts.cancel')}
          yesLabel={t('counts.sendDraftYes')}
          onNo={() => setAsking(null)}
          onYes={() => {
            setAsking(null)
            send.mutate('draft')
          }}
        >
          {notCounted}
        </ConfirmDialog>
      )}
      {asking === 'process' && (
        <ConfirmDialog
          message={tCount('counts.confirmProcess', count.lineCount)}
          noLabel={t('counts.cancel')}
          yesLabel={t('counts.processYes')}
          onNo={() => setAsking(null)}
          onYes={() => {
            setAsking(null)
            send.mutate('process')
          }}
        >
          {notCounted}
        </ConfirmDialog>
      )}
      {asking === 'remove' && (
        <ConfirmDialog
          message={tCount('counts.confirmRemove', count.lineCount)}
          noLabel={t('counts.cancel')}
          yesLabel={t('counts.removeYes')}
          onNo={() => setAsking(null)}
          onYes={() => {
            setAsking(null)
            remove.mutate()
          }}
        />
      )}
    </Section>
  )
}
