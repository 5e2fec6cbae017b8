import { useQuery } from '@tanstack/react-query'
import { isNetworkFailure } from '../../api/client.ts'
import { locale, t } from '../../i18n/index.ts'
import { userMessage } from '../../lib/errors.ts'
import { formatQuantity } from '../../lib/quantity.ts'
import type { LocationRef } from '../../lib/scan.ts'
import type { ScanCatalogue } from '../../offline/catalogue.ts'
import { useOffline } from '../../state/reachability.ts'
import { stockAtLocation, type StockHere } from '../../api/scan.ts'
import { locationLabel } from '../../components/scanFields.tsx'

/** Rows shown at once: a location is a shelf, not a warehouse. */
const SHOWN = 50

/**
 * What the local copy expects at the storage location in context, so a worker counting a shelf
 * sees what should be there (and notices what is not); tapping an item shows it as if scanned.
 * Out of reach of the server, the catalogue this device keeps answers.
 */
export function LocationContents({ location, catalogue, onPick }: { location: LocationRef; catalogue: ScanCatalogue | null; onPick: (code: string) => void }) {
  const offline = useOffline()
  const live = useQuery({ queryKey: ['scan', 'atLocation', location.ID], queryFn: () => stockAtLocation(location.ID), enabled: !offline, retry: false })
  const kept = (offline || isNetworkFailure(live.error)) && catalogue
  const rows: StockHere[] | undefined = kept
    ? catalogue.stockAtLocation(location.ID).map((r) => ({ Item: r.item.ID, ItemCode: r.item.Code, ItemDescription: r.item.Description, Stock: r.stock }))
    : live.data
  return (
    <section aria-labelledby="location-contents" className="rounded-lg bg-white p-3 shadow" data-testid="location-contents">
      <h2 id="location-contents" className="mb-2 text-base font-semibold">
        {t('scanning.expectedHere', { location: locationLabel(location) })}
      </h2>
      {!rows && live.isPending && <p role="status">{t('scanning.loading')}</p>}
      {!kept && live.error && !isNetworkFailure(live.error) && (
        <p role="alert" className="text-red-700">
          {userMessage(live.error)}
        </p>
      )}
      {rows && rows.length === 0 && <p className="text-slate-700">{t('scanning.nothingExpectedHere')}</p>}
      {rows && rows.length > 0 && (
        <ul className="flex flex-col divide-y divide-slate-100">
          {rows.slice(0, SHOWN).map((r) => (
            <li key={r.Item}>
              <button type="button" onClick={() => onPick(r.ItemCode)} className="flex min-h-12 w-full items-center gap-3 py-2 text-left">
                <span className="font-mono text-sm font-semibold">{r.ItemCode}</span>
                <span className="min-w-0 flex-1 truncate text-sm text-slate-700">{r.ItemDescription}</span>
                <span className="text-sm tabular-nums">{formatQuantity(r.Stock ?? 0, locale(), 3)}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
      {rows && rows.length > SHOWN && <p className="mt-2 text-sm text-slate-600">{t('scanning.expectedMore', { shown: SHOWN, total: rows.length })}</p>}
    </section>
  )
}
