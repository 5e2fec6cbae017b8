import { useMutation, useQueryClient } from '@tanstack/react-query'
import { liveKeys, queryKeys } from '../api/queries.ts'
import { startSync, type SyncEndpoint } from '../api/sync.ts'
import { t } from '../i18n/index.ts'
import { orderEndpoints, useEndpointSelection } from '../state/endpointSelection.ts'
import { CaretIcon } from './icons.tsx'
import { useDropdown } from './useDismiss.ts'
import { syncStartMessage } from '../lib/syncStart.ts'

/** Sync Data: the button syncs the chosen endpoints; the caret opens the checkbox list. */
export function SyncButton({ endpoints, running }: { endpoints: readonly SyncEndpoint[]; running: boolean }) {
  const { selection, toggle } = useEndpointSelection(endpoints)
  const { open, toggle: toggleOpen, area, trigger: caret } = useDropdown()
  const queryClient = useQueryClient()
  const sync = useMutation({
    mutationFn: () => startSync(selection),
    onSettled: async (answer) => {
      await queryClient.invalidateQueries({ queryKey: queryKeys.syncStatus })
      // "Fetched live" endpoints ticked in the menu were refreshed on the server: read them anew
      const refreshed = Object.keys(answer?.refreshed ?? {})
      if (refreshed.length > 0) {
        await Promise.all(refreshed.map((name) => queryClient.invalidateQueries({ queryKey: liveKeys.named(name) })))
      }
    },
  })

  const ordered = orderEndpoints(endpoints)
  const groups = [
    { label: t('sync.syncEndpoints'), items: ordered.filter((e) => e.sync) },
    { label: t('sync.liveEndpoints'), items: ordered.filter((e) => !e.sync) },
  ].filter((g) => g.items.length > 0)

  const message = syncStartMessage(sync) ?? (selection.length === 0 ? t('sync.nothingSelected') : null)

  return (
    <div ref={area} className="relative flex flex-col items-end gap-1">
      <div className="inline-flex rounded-md shadow-sm">
        <button
          type="button"
          onClick={() => sync.mutate()}
          disabled={sync.isPending || running || selection.length === 0}
          className="rounded-l-md bg-sky-800 px-4 py-2 font-medium text-white hover:bg-sky-900 disabled:opacity-60"
        >
          {t('sync.button')}
        </button>
        <button
          ref={caret}
          type="button"
          aria-label={t('sync.choose')}
          aria-haspopup="true"
          aria-expanded={open}
          onClick={toggleOpen}
          className="rounded-r-md border-l border-sky-900 bg-sky-800 px-2 text-white hover:bg-sky-900"
        >
          <CaretIcon />
        </button>
      </div>
      {message && (
        <p role={sync.isError ? 'alert' : 'status'} className={`text-sm ${sync.isError ? 'text-red-700' : 'text-slate-600'}`}>
          {message}
        </p>
      )}
      {open && (
        <div className="absolute top-full right-0 z-20 mt-1 max-h-96 w-72 overflow-y-auto rounded-md bg-white p-2 shadow-lg ring-1 ring-slate-200">
          {groups.map((g) => (
            <fieldset key={g.label} className="mb-2">
              <legend className="px-2 py-1 text-xs font-semibold uppercase tracking-wide text-slate-500">{g.label}</legend>
              {g.items.map((e) => (
                <label key={e.table} className="flex cursor-pointer items-center gap-2 rounded px-2 py-1 hover:bg-slate-100">
                  <input type="checkbox" checked={selection.includes(e.table)} onChange={() => toggle(e.table)} />
                  {e.name}
                </label>
              ))}
            </fieldset>
          ))}
        </div>
      )}
    </div>
  )
}
