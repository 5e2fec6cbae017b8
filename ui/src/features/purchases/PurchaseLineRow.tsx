import { memo } from 'react'
import { ExternalLink } from '../../components/ExternalLink.tsx'
import { t, tCount } from '../../i18n/index.ts'
import { formatDay } from '../../lib/dateTime.ts'
import { formatQty } from '../../lib/quantity.ts'
import { daysLate, isLate, type GroupBy, type PurchaseLine } from '../../lib/purchases.ts'

/** Received against ordered, as a bar and figures. */
function Progress({ line }: { line: PurchaseLine }) {
  const share = line.quantity > 0 ? Math.min(1, Math.max(0, line.received / line.quantity)) : 0
  return (
    <span className="flex min-w-32 flex-col gap-1">
      <span className="text-xs tabular-nums text-slate-700">
        {formatQty(line.received)} / {formatQty(line.quantity)} {line.unit}
      </span>
      <span
        role="progressbar"
        aria-valuemin={0}
        aria-valuemax={line.quantity}
        aria-valuenow={line.received}
        aria-label={t('purchases.received')}
        className="h-2 w-full overflow-hidden rounded bg-slate-200"
      >
        <span className="block h-full bg-emerald-600" style={{ width: `${share * 100}%` }} />
      </span>
    </span>
  )
}

/** One open purchase order line; late ones are marked in red with the days they are late. */
export const PurchaseLineRow = memo(function PurchaseLineRow({
  line,
  division,
  today,
  groupBy,
}: {
  line: PurchaseLine
  division: number
  today: string
  groupBy: GroupBy
}) {
  const late = isLate(line, today)
  return (
    <div
      data-testid="purchase-line"
      data-line={line.id}
      data-late={late}
      data-supplier={line.supplierCode}
      data-order={line.orderNumber}
      className={`grid grid-cols-1 gap-2 border-b border-slate-100 px-3 py-3 text-sm md:grid-cols-[8rem_minmax(12rem,2fr)_minmax(10rem,1fr)_11rem_10rem_7rem] md:items-center ${late ? 'bg-red-50' : ''}`}
    >
      <span>
        <ExternalLink page="purchaseOrder" division={division} id={line.orderId} code={line.orderNumber} className="font-mono">
          {line.orderNumber}
        </ExternalLink>
      </span>
      <span className="flex min-w-0 flex-col">
        {groupBy !== 'item' && (
          <ExternalLink page="itemCard" division={division} id={line.item} code={line.itemCode} className="font-mono">
            {line.itemCode}
          </ExternalLink>
        )}
        <span className="truncate text-slate-700" title={line.itemDescription}>
          {line.itemDescription}
        </span>
      </span>
      <span className="min-w-0 truncate text-slate-700">
        {groupBy !== 'supplier' && `${line.supplierCode} ${line.supplierName}`}
        {line.projectCode && (
          <span className="ml-1 text-xs text-slate-500">
            {t('purchases.project')}{' '}
            {line.project ? (
              <ExternalLink page="project" division={division} id={line.project} code={line.projectCode}>
                {line.projectCode}
              </ExternalLink>
            ) : (
              line.projectCode
            )}
          </span>
        )}
      </span>
      <span className="flex flex-col">
        <span className={late ? 'font-semibold text-red-800' : ''}>{line.day ? formatDay(line.day) : t('purchases.noDate')}</span>
        {late && (
          <span data-testid="late-badge" className="w-fit rounded bg-red-100 px-1.5 text-xs font-semibold text-red-800">
            {tCount('purchases.lateDays', daysLate(line, today))}
          </span>
        )}
      </span>
      <Progress line={line} />
      <span className="font-semibold tabular-nums md:text-right">
        <span className="mr-1 text-xs font-normal text-slate-500 md:hidden">{t('purchases.open')}</span>
        {formatQty(line.quantity - line.received)}
      </span>
    </div>
  )
})
