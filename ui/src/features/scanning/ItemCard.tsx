import type { ReactNode } from 'react'
import type { LocationStock, ScannedItem, WarehouseStock } from '../../api/scan.ts'
import { ExternalLink } from '../../components/ExternalLink.tsx'
import { ItemPicture } from '../../components/ItemPicture.tsx'
import { locale, t } from '../../i18n/index.ts'
import type { LocationRef } from '../../lib/scan.ts'
import { isCatalogueRef } from '../../offline/catalogue.ts'
import { cardStock } from '../../lib/itemStock.ts'

const fmt = (n: number) => n.toLocaleString(locale(), { maximumFractionDigits: 3 })

/**
 * The scanned item: picture, code, description and total stock first, then `children` (the
 * actions and the chosen panel, so a handheld has them on its first screen), then the stock per
 * storage location and warehouse.
 */
export function ItemCard({
  item,
  stock,
  warehouses,
  stockLoading,
  location,
  division,
  waiting = 0,
  children,
}: {
  item: ScannedItem
  stock: readonly LocationStock[] | undefined
  /** The item's stock positions per warehouse: the only stock of warehouses without storage locations. */
  warehouses: readonly WarehouseStock[] | undefined
  stockLoading: boolean
  location: LocationRef | null
  division: number
  /** Issued here and not yet in Exact's stock figures (kept on this device, queued on the server). */
  waiting?: number
  children?: ReactNode
}) {
  const { rows, total } = cardStock(stock, warehouses)
  return (
    <section aria-label={t('scanning.itemCard')} data-testid="item-card" className="flex flex-col gap-3 rounded-lg bg-white p-3 shadow">
      <div className="flex gap-3">
        <ItemPicture item={item} box="h-16 w-16 md:h-24 md:w-24" alt={t('scanning.pictureOf', { code: item.Code })} missing={t('scanning.noPicture')} />
        <div className="flex min-w-0 flex-col gap-1">
          <h2 className="text-xl font-bold break-words text-sky-900" data-testid="item-code">
            {item.Code}
          </h2>
          <p className="text-base break-words text-slate-700">{item.Description}</p>
          <p className="text-base" data-testid="item-total">
            {t('scanning.stock')}: <span className="font-semibold tabular-nums">{stockLoading ? '…' : fmt(total - waiting)}</span>
            {item.Unit ? ` ${item.Unit}` : ''}
            {waiting > 0 && !stockLoading && (
              <span className="block text-sm text-amber-800" data-testid="item-waiting">
                {t('scanning.stockWaiting', { quantity: fmt(waiting), unit: item.Unit?.trim() ?? '' })}
              </span>
            )}
          </p>
          {item.Barcode && <p className="text-sm text-slate-500">{t('scanning.barcode', { barcode: item.Barcode })}</p>}
          {/* Exact's item card is opened by its GUID, which an item shown from the catalogue has not */}
          {!isCatalogueRef(item.ID) && <ExternalLink page="itemCard" division={division} id={item.ID} code={item.Code} className="text-sm" />}
        </div>
      </div>
      {children}
      <table className="w-full text-base" data-testid="item-stock">
        <caption className="text-left text-sm font-medium text-slate-600">{t('scanning.stockPerLocation')}</caption>
        <thead className="text-left text-sm text-slate-500">
          <tr>
            <th scope="col" className="py-1 font-medium">
              {t('scanning.location')}
            </th>
            <th scope="col" className="py-1 font-medium">
              {t('scanning.warehouse')}
            </th>
            <th scope="col" className="py-1 text-right font-medium">
              {t('scanning.stock')}
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {rows.map((r) => (
            <tr
              key={r.key}
              data-location={r.locationCode ?? ''}
              className={r.storageLocation && r.storageLocation === location?.ID ? 'bg-amber-50 font-semibold' : ''}
            >
              <td className="py-2">
                {r.locationCode ?? t('scanning.noLocation')}
                {r.locationDescription && <span className="block text-sm font-normal text-slate-500">{r.locationDescription}</span>}
              </td>
              <td className="py-2">{r.warehouseCode}</td>
              <td className="py-2 text-right tabular-nums">{fmt(r.stock)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot>
          <tr className="border-t border-slate-300">
            <th scope="row" colSpan={2} className="py-2 text-left">
              {t('scanning.total')}
            </th>
            <td className="py-2 text-right font-semibold tabular-nums">{fmt(total)}</td>
          </tr>
        </tfoot>
      </table>
      {stockLoading && <p role="status">{t('scanning.loading')}</p>}
      {!stockLoading && rows.length === 0 && <p className="text-slate-600">{t('scanning.noStock')}</p>}
    </section>
  )
}
