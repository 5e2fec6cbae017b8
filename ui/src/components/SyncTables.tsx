import type { SyncEndpoint, SyncStatus } from '../api/sync.ts'
import { t } from '../i18n/index.ts'
import { formatDateTime } from '../lib/format.ts'

/** The local tables: rows, newest sync Timestamp and the last error of each. */
export function SyncTables({ status, endpoints }: { status: SyncStatus; endpoints: readonly SyncEndpoint[] }) {
  const names = new Map(endpoints.map((e) => [e.table, e.name]))
  const rows = Object.entries(status.tables)
  return (
    <section aria-labelledby="sync-tables" className="rounded-lg bg-white shadow">
      <header className="flex flex-wrap items-baseline justify-between gap-2 border-b border-slate-200 px-4 py-3">
        <h2 id="sync-tables" className="font-semibold">
          {t('dashboard.tables')}
        </h2>
        <p className="text-sm text-slate-600" data-testid="last-sync">
          {status.running
            ? t('dashboard.running')
            : status.last_sync
              ? t('dashboard.lastSync', { time: formatDateTime(status.last_sync) })
              : t('dashboard.neverSynced')}
        </p>
      </header>
      <div className="overflow-x-auto">
        <table className="w-full text-sm">
          <thead className="bg-slate-50 text-left text-slate-500">
            <tr>
              <th scope="col" className="px-4 py-2 font-medium">
                {t('dashboard.table')}
              </th>
              <th scope="col" className="px-4 py-2 text-right font-medium">
                {t('dashboard.rows')}
              </th>
              <th scope="col" className="hidden px-4 py-2 text-right font-medium sm:table-cell">
                {t('dashboard.timestamp')}
              </th>
              <th scope="col" className="px-4 py-2 font-medium">
                {t('dashboard.error')}
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-100">
            {rows.map(([table, s]) => (
              <tr key={table}>
                <th scope="row" className="px-4 py-2 text-left font-normal">
                  {names.get(table) ?? table}
                </th>
                <td className="px-4 py-2 text-right tabular-nums">{s.rows.toLocaleString()}</td>
                <td className="hidden px-4 py-2 text-right tabular-nums text-slate-500 sm:table-cell">
                  {s.timestamp ?? '–'}
                </td>
                <td className="px-4 py-2 text-red-700">{s.error ?? ''}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  )
}
