import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { Link } from 'react-router'
import { isApiError } from '../api/client.ts'
import { dbClear } from '../api/db.ts'
import { discardEntry, discardRefused, getOutbox, retryEntry, type EntryState, type OutboxEntry } from '../api/outbox.ts'
import { outboxKeys, queryKeys, useDivision, useSession, useSyncEndpoints, useSyncStatus } from '../api/queries.ts'
import { startSync, type SyncEndpoint, type SyncStatus } from '../api/sync.ts'
import { ConfirmDialog } from '../components/ConfirmDialog.tsx'
import { EntryMessage } from '../components/EntryMessage.tsx'
import { LoadingScreen } from '../components/LoadingScreen.tsx'
import { locale, t, type MessageKey } from '../i18n/index.ts'
import { withDivision } from '../lib/access.ts'
import { formatServerTime } from '../lib/dateTime.ts'
import { userMessage } from '../lib/errors.ts'
import { Button } from '../components/ui/Button.tsx'

const STATE_LABEL: Record<EntryState, MessageKey> = {
  pending: 'mng.state.pending',
  sending: 'mng.state.sending',
  delivered: 'mng.state.delivered',
  failed: 'mng.state.failed',
}

const STATE_STYLE: Record<EntryState, string> = {
  pending: 'bg-amber-100 text-amber-900',
  sending: 'bg-sky-100 text-sky-900',
  delivered: 'bg-emerald-100 text-emerald-900',
  failed: 'bg-red-100 text-red-900',
}

function Tables({ status, endpoints }: { status: SyncStatus; endpoints: readonly SyncEndpoint[] }) {
  const queryClient = useQueryClient()
  const [clearing, setClearing] = useState<SyncEndpoint | null>(null)
  const [note, setNote] = useState<{ text: string; error: boolean } | null>(null)
  const sync = useMutation({
    mutationFn: async ({ table, clear }: { table: SyncEndpoint; clear: boolean }) => {
      if (clear) await dbClear(table.table)
      await startSync([table.table])
      return table
    },
    onSuccess: (table) => setNote({ text: t('mng.started', { name: table.name }), error: false }),
    onError: (e) => setNote({ text: isApiError(e, 409) ? t('sync.alreadyRunning') : e.message, error: true }),
    onSettled: () => queryClient.invalidateQueries({ queryKey: queryKeys.syncStatus }),
  })
  const synced = endpoints.filter((e) => e.sync)
  const th = 'px-3 py-2 font-medium'
  return (
    <section aria-labelledby="mng-tables" className="rounded-lg bg-white shadow">
      <header className="flex flex-wrap items-baseline justify-between gap-2 border-b border-slate-200 px-4 py-3">
        <h2 id="mng-tables" className="font-semibold">
          {t('mng.tables')}
        </h2>
        <p className="text-sm text-slate-600" data-testid="last-sync">
          {status.running
            ? t('dashboard.running')
            : status.last_sync
              ? t('dashboard.lastSync', { time: formatServerTime(status.last_sync) })
              : t('dashboard.neverSynced')}
        </p>
      </header>
      {note && (
        <p role={note.error ? 'alert' : 'status'} className={`px-4 pt-3 text-sm ${note.error ? 'text-red-700' : 'text-slate-700'}`}>
          {note.text}
        </p>
      )}
      <div className="overflow-x-auto">
        <table className="w-full text-sm">
          <thead className="bg-slate-50 text-left text-slate-500">
            <tr>
              <th scope="col" className={th}>
                {t('dashboard.table')}
              </th>
              <th scope="col" className={`${th} text-right`}>
                {t('dashboard.rows')}
              </th>
              <th scope="col" className={`${th} hidden text-right sm:table-cell`}>
                {t('mng.timestamp')}
              </th>
              <th scope="col" className={th}>
                {t('dashboard.error')}
              </th>
              <th scope="col" className={th}>
                {t('mng.actions')}
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {synced.map((e) => {
              const s = status.tables[e.table]
              return (
                <tr key={e.table}>
                  <th scope="row" className="px-3 py-2 text-left font-normal">
                    {e.name}
                  </th>
                  <td className="px-3 py-2 text-right tabular-nums">{(s?.rows ?? 0).toLocaleString(locale())}</td>
                  <td className="hidden px-3 py-2 text-right text-slate-500 tabular-nums sm:table-cell">{s?.timestamp ?? '–'}</td>
                  <td className="px-3 py-2 text-red-700">{s?.error ?? ''}</td>
                  <td className="px-3 py-2">
                    <span className="flex flex-wrap gap-2">
                      <Button
                        type="button"
                        variant="secondary"
                        size="sm"
                        disabled={status.running || sync.isPending}
                        onClick={() => sync.mutate({ table: e, clear: false })}
                        aria-label={`${t('mng.resync')}: ${e.name}`}
                      >
                        {t('mng.resync')}
                      </Button>
                      <Button
                        type="button"
                        variant="secondary"
                        size="sm"
                        className="text-red-800"
                        disabled={status.running || sync.isPending}
                        onClick={() => setClearing(e)}
                        aria-label={`${t('mng.clear')}: ${e.name}`}
                      >
                        {t('mng.clear')}
                      </Button>
                    </span>
                  </td>
                </tr>
              )
            })}
          </tbody>
        </table>
      </div>
      {clearing && (
        <ConfirmDialog
          message={t('mng.clearConfirm', { name: clearing.name })}
          noLabel={t('logout.no')}
          yesLabel={t('logout.yes')}
          onNo={() => setClearing(null)}
          onYes={() => {
            setNote({ text: t('mng.clearing', { name: clearing.name }), error: false })
            sync.mutate({ table: clearing, clear: true })
            setClearing(null)
          }}
        />
      )}
    </section>
  )
}

function describe(e: OutboxEntry): string {
  return `${e.action} · ${e.method} ${e.path}`
}

export function OutboxPanel() {
  const queryClient = useQueryClient()
  const outbox = useQuery({
    queryKey: outboxKeys.list(useDivision()),
    queryFn: getOutbox,
    refetchInterval: (q) => (q.state.data && q.state.data.pending > 0 ? 2_000 : 10_000),
  })
  const [discarding, setDiscarding] = useState<OutboxEntry | null>(null)
  const loaded = !!outbox.data
  // a link to the list of writes ("See the list of writes") lands on it once it is there
  useEffect(() => {
    if (loaded && window.location.hash === '#mng-outbox') document.getElementById('mng-outbox')?.scrollIntoView?.({ block: 'start' })
  }, [loaded])
  const refresh = () => queryClient.invalidateQueries({ queryKey: outboxKeys.all })
  const retry = useMutation({ mutationFn: retryEntry, onSettled: refresh })
  const discard = useMutation({ mutationFn: discardEntry, onSettled: refresh })
  const [discardingRefused, setDiscardingRefused] = useState(false)
  const discardAll = useMutation({ mutationFn: discardRefused, onSettled: refresh })
  const failure = retry.error ?? discard.error ?? discardAll.error
  const th = 'px-3 py-2 font-medium'

  return (
    <section aria-labelledby="mng-outbox" className="rounded-lg bg-white shadow">
      <header className="border-b border-slate-200 px-4 py-3">
        <h2 id="mng-outbox" className="font-semibold">
          {t('mng.outbox')}
        </h2>
        {outbox.data && <p className="text-sm text-slate-600">{t('mng.outboxIntro', { pending: outbox.data.pending, failed: outbox.data.failed })}</p>}
        {outbox.data && outbox.data.failed > 0 && (
          <Button
            type="button"
            variant="secondary"
            size="sm"
            className="mt-2 text-red-800"
            disabled={discardAll.isPending}
            onClick={() => setDiscardingRefused(true)}
          >
            {t('mng.discardRefused', { count: outbox.data.failed })}
          </Button>
        )}
        {discardAll.data && (
          <p role="status" className="mt-2 text-sm text-slate-600">
            {t('mng.discardedRefused', { count: discardAll.data.discarded })}
          </p>
        )}
      </header>
      {(outbox.error ?? failure) && (
        <p role="alert" className="px-4 pt-3 text-sm text-red-700">
          {userMessage(outbox.error ?? failure)}
        </p>
      )}
      {outbox.data && outbox.data.entries.length === 0 && <p className="p-4 text-sm text-slate-500">{t('mng.outboxEmpty')}</p>}
      {outbox.data && outbox.data.entries.length > 0 && (
        <div className="max-h-[32rem] overflow-auto">
          <table className="w-full text-sm">
            <thead className="sticky top-0 bg-slate-50 text-left text-slate-500">
              <tr>
                <th scope="col" className={th}>
                  {t('mng.created')}
                </th>
                <th scope="col" className={th}>
                  {t('mng.what')}
                </th>
                <th scope="col" className={th}>
                  {t('mng.state')}
                </th>
                <th scope="col" className={`${th} hidden text-right md:table-cell`}>
                  {t('mng.attempts')}
                </th>
                <th scope="col" className={`${th} hidden md:table-cell`}>
                  {t('mng.by')}
                </th>
                <th scope="col" className={th}>
                  {t('mng.message')}
                </th>
                <th scope="col" className={th}>
                  {t('mng.actions')}
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-100">
              {outbox.data.entries.map((e) => (
                <tr key={e.id} data-testid="outbox-entry">
                  <td className="px-3 py-2 whitespace-nowrap text-slate-600" data-testid="outbox-created">
                    {formatServerTime(e.created_ms)}
                  </td>
                  <td className="max-w-80 truncate px-3 py-2 font-mono text-xs" title={describe(e)}>
                    {describe(e)}
                  </td>
                  <td className="px-3 py-2">
                    <span className={`rounded px-2 py-0.5 text-xs font-medium ${STATE_STYLE[e.state]}`}>{t(STATE_LABEL[e.state])}</span>
                  </td>
                  <td className="hidden px-3 py-2 text-right tabular-nums md:table-cell">{e.attempts}</td>
                  <td className="hidden px-3 py-2 md:table-cell">{e.user_name}</td>
                  <td className="px-3 py-2">
                    <EntryMessage entry={e} />
                  </td>
                  <td className="px-3 py-2">
                    <span className="flex gap-2">
                      {e.state === 'failed' && (
                        <Button type="button" variant="secondary" size="sm" disabled={retry.isPending} onClick={() => retry.mutate(e.id)}>
                          {t('mng.retry')}
                        </Button>
                      )}
                      {(e.state === 'failed' || e.state === 'pending') && (
                        <Button type="button" variant="secondary" size="sm" className="text-red-800" onClick={() => setDiscarding(e)}>
                          {t('mng.discard')}
                        </Button>
                      )}
                    </span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {discardingRefused && (
        <ConfirmDialog
          message={t('mng.discardRefusedConfirm', { count: outbox.data?.failed ?? 0 })}
          noLabel={t('logout.no')}
          yesLabel={t('logout.yes')}
          onNo={() => setDiscardingRefused(false)}
          onYes={() => {
            discardAll.mutate()
            setDiscardingRefused(false)
          }}
        />
      )}
      {discarding && (
        <ConfirmDialog
          message={t('mng.discardConfirm')}
          noLabel={t('logout.no')}
          yesLabel={t('logout.yes')}
          onNo={() => setDiscarding(null)}
          onYes={() => {
            discard.mutate(discarding.id)
            setDiscarding(null)
          }}
        />
      )}
    </section>
  )
}

/** The database access page: the local tables (clear, sync again) and the outbox. */
export default function Management() {
  const status = useSyncStatus(true)
  const endpoints = useSyncEndpoints(true)
  const { data: session } = useSession()
  return (
    <div className="mx-auto flex w-full max-w-6xl flex-col gap-6 p-4 md:p-6">
      <div>
        <h1 className="text-2xl font-bold text-sky-900">{t('mng.title')}</h1>
        <p className="text-slate-600">{t('mng.intro')}</p>
        <Link to={withDivision('/importData', session)} className="text-sky-800 underline">
          {t('importData.mngLink')}
        </Link>
      </div>
      {(status.error ?? endpoints.error) && (
        <p role="alert" className="text-red-700">
          {userMessage(status.error ?? endpoints.error)}
        </p>
      )}
      {status.data && endpoints.data ? <Tables status={status.data} endpoints={endpoints.data} /> : <LoadingScreen />}
      <OutboxPanel />
    </div>
  )
}
