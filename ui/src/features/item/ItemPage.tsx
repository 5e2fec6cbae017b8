import { useMemo, type ReactNode } from 'react'
import { Link, useSearchParams } from 'react-router'
import { useItem, useItemLines, useItemStock, type ItemDetails } from './api.ts'
import { useSession } from '../../api/queries.ts'
import { isActive } from '../../api/stock.ts'
import { ExternalLink } from '../../components/ExternalLink.tsx'
import { Section, sectionClass } from '../../components/ui/Section.tsx'
import { ItemPicture } from '../../components/ItemPicture.tsx'
import { Loading } from '../../components/Loading.tsx'
import { LoadingScreen } from '../../components/LoadingScreen.tsx'
import { t } from '../../i18n/index.ts'
import { DASHBOARD, withDivision } from '../../lib/access.ts'
import { formatDay } from '../../lib/dateTime.ts'
import { userMessage } from '../../lib/errors.ts'
import type { ExactPage } from '../../lib/exactLinks.ts'
import { formatQty } from '../../lib/quantity.ts'
import { projectItem, type BalanceLine, type ItemProjection, type LineKind } from '../../lib/shortage.ts'
import { cardStock } from '../../lib/itemStock.ts'

const link = 'text-sky-800 underline-offset-2 hover:underline focus:ring-2 focus:ring-sky-600 focus:outline-none'
const th = 'px-3 py-2 font-medium'
const td = 'px-3 py-2'

/** The unit as the Dashboard writes it: its description where Exact has one. */
const unitOf = (item: ItemDetails) => item.UnitDescription?.trim() || item.Unit?.trim() || ''

function BackLink() {
  const { data: session } = useSession()
  return (
    <Link to={withDivision(DASHBOARD, session)} className={`inline-flex w-fit items-center text-sm max-md:min-h-11 ${link}`}>
      ← {t('item.back')}
    </Link>
  )
}

/** An id the local copy has no item of: said plainly, with the way back. */
function NotFound() {
  return (
    <section className={sectionClass} data-testid="item-not-found" aria-labelledby="item-not-found-title">
      <h1 id="item-not-found-title" className="text-2xl font-bold text-sky-900">
        {t('item.notFound')}
      </h1>
      <p className="text-slate-600">{t('item.notFoundHelp')}</p>
      <BackLink />
    </section>
  )
}

function Header({ item, division }: { item: ItemDetails; division: number }) {
  const group = [item.ItemGroupCode, item.ItemGroupDescription]
    .map((s) => s?.trim())
    .filter(Boolean)
    .join(' ')
  return (
    <section className="flex flex-col gap-4 rounded-lg bg-white p-4 shadow sm:flex-row" aria-labelledby="item-code">
      <ItemPicture item={item} box="h-32 w-32 md:h-40 md:w-40" alt={t('item.picture', { code: item.Code })} missing={t('item.noPicture')} />
      <div className="flex min-w-0 flex-1 flex-col gap-2">
        <div className="flex flex-wrap items-center gap-2">
          <h1 id="item-code" data-testid="item-code" className="text-2xl font-bold break-words text-sky-900">
            {item.Code}
          </h1>
          {!isActive(item.EndDate) && <span className="rounded bg-slate-200 px-1.5 text-xs text-slate-600">{t('item.inactive')}</span>}
        </div>
        <p data-testid="item-description" className="break-words text-slate-700">
          {item.Description}
        </p>
        <dl className="grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
          <dt className="text-slate-500">{t('item.group')}</dt>
          <dd data-testid="item-group">{group || t('item.none')}</dd>
          <dt className="text-slate-500">{t('item.unit')}</dt>
          <dd data-testid="item-unit">{unitOf(item) || t('item.none')}</dd>
          {item.Barcode && (
            <>
              <dt className="text-slate-500">{t('item.barcode')}</dt>
              <dd className="font-mono">{item.Barcode}</dd>
            </>
          )}
        </dl>
        <div className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
          <ExternalLink page="itemCard" division={division} id={item.ID} code={item.Code} />
          <ExternalLink page="inventoryTransactions" division={division} id={item.ID} />
        </div>
      </div>
    </section>
  )
}

/** Stock per storage location, then the warehouses without locations, as Scanning's item card counts it. */
function StockSection({ item }: { item: ItemDetails }) {
  const { locations, warehouses } = useItemStock(item.ID)
  const error = locations.error ?? warehouses.error
  const { rows, total } = cardStock(locations.data, warehouses.data)
  const unit = unitOf(item)
  let body: ReactNode
  if (error) {
    body = (
      <p role="alert" className="text-red-700">
        {t('item.stockFailed', { message: userMessage(error) })}
      </p>
    )
  } else if (locations.isPending || warehouses.isPending) {
    body = <Loading />
  } else if (rows.length === 0) {
    body = <p className="text-slate-600">{t('item.stock.none')}</p>
  } else {
    body = (
      <div className="overflow-x-auto rounded border border-slate-200">
        <table className="w-full text-sm" data-testid="item-stock">
          <thead className="bg-slate-50 text-left text-xs text-slate-600">
            <tr>
              <th scope="col" className={th}>
                {t('item.stock.location')}
              </th>
              <th scope="col" className={th}>
                {t('item.stock.warehouse')}
              </th>
              <th scope="col" className={`${th} text-right`}>
                {t('item.stock.quantity')}
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={r.key} data-location={r.locationCode ?? ''} className="border-t border-slate-100">
                <td className={td}>
                  {r.locationCode ?? t('item.stock.noLocation')}
                  {r.locationDescription && <span className="block text-xs text-slate-500">{r.locationDescription}</span>}
                </td>
                <td className={td}>{r.warehouseCode}</td>
                <td className={`${td} text-right tabular-nums`}>{formatQty(r.stock)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr className="border-t border-slate-300">
              <th scope="row" colSpan={2} className={`${th} text-left`}>
                {t('item.stock.total')}
              </th>
              <td className={`${td} text-right font-semibold tabular-nums`} data-testid="item-stock-total">
                {formatQty(total)} <span className="text-xs font-normal text-slate-500">{unit}</span>
              </td>
            </tr>
          </tfoot>
        </table>
      </div>
    )
  }
  return (
    <Section title={t('item.stock')} titleId="item-stock-title">
      {body}
    </Section>
  )
}

/** Purchase order lines are read live from Exact Online: the page sends the user to Purchases for them. */
function PurchasesNote() {
  const { data: session } = useSession()
  const [before, after = ''] = t('item.purchases').split('{link}')
  return (
    <p className="rounded bg-sky-50 p-3 text-sm text-sky-900" data-testid="item-purchases-note">
      {before}
      <Link to={withDivision('/purchaseOverview', session)} className={`underline ${link}`}>
        {t('purchases.nav')}
      </Link>
      {after}
    </p>
  )
}

function Projection({ projection: p, unit }: { projection: ItemProjection; unit: string }) {
  return (
    <Section title={t('item.projection')} titleId="item-projection-title" data-testid="item-projection">
      <p data-testid="item-projected" className={`font-semibold tabular-nums ${p.endBalance < 0 ? 'text-red-700' : ''}`}>
        {t('item.projected', { balance: formatQty(p.endBalance), unit })}
      </p>
      <p className="text-sm text-slate-600">
        {t('item.projectedParts', { free: formatQty(p.free), supply: formatQty(p.supply), demand: formatQty(p.demand) })}
      </p>
      {p.lowest < 0 ? (
        <p className="text-sm font-medium text-red-700" data-testid="item-short-from">
          {t('item.shortFrom', {
            day: p.firstShortDay ? formatDay(p.firstShortDay) : t('item.noDate'),
            // a negative stock is short before any order: the lowest balance says by how much
            balance: formatQty(p.firstShortDay ? p.firstShortBalance : p.lowest),
            unit,
          })}
        </p>
      ) : (
        <p className="text-sm text-slate-600">{t('item.neverShort')}</p>
      )}
      <PurchasesNote />
    </Section>
  )
}

type OrderList = 'made' | 'needed' | 'sold'

/** The order lists below the projection: which lines each shows and where their orders open in Exact Online. */
const ORDER_LISTS: readonly { name: OrderList; kind: LineKind; page: ExactPage }[] = [
  { name: 'made', kind: 'MA', page: 'shopOrder' },
  { name: 'needed', kind: 'MS', page: 'shopOrder' },
  { name: 'sold', kind: 'SO', page: 'salesOrder' },
]

function Orders({ list, lines, division, unit }: { list: (typeof ORDER_LISTS)[number]; lines: readonly BalanceLine[]; division: number; unit: string }) {
  const title = `item-${list.name}-title`
  return (
    <Section title={t(`item.${list.name}`)} titleId={title} data-testid={`item-${list.name}`}>
      {lines.length === 0 ? (
        <p className="text-slate-600">{t(`item.${list.name}.none`)}</p>
      ) : (
        <div className="overflow-x-auto rounded border border-slate-200">
          <table className="w-full text-sm">
            <thead className="bg-slate-50 text-left text-xs text-slate-600">
              <tr>
                <th scope="col" className={th}>
                  {t(`item.${list.name}.order`)}
                </th>
                <th scope="col" className={th}>
                  {t(`item.${list.name}.date`)}
                </th>
                <th scope="col" className={`${th} text-right`}>
                  {t(`item.${list.name}.quantity`)}
                </th>
              </tr>
            </thead>
            <tbody>
              {lines.map((l, i) => (
                <tr key={`${l.refId}-${l.lineId ?? ''}-${i}`} data-ref={l.refNumber} data-day={l.day ?? ''} className="border-t border-slate-100">
                  <td className={td}>
                    <ExternalLink page={list.page} division={division} id={l.refId} code={l.refNumber}>
                      {l.refNumber}
                    </ExternalLink>
                  </td>
                  <td className={`${td} whitespace-nowrap`}>{l.day ? formatDay(l.day) : t('item.noDate')}</td>
                  <td className={`${td} text-right tabular-nums`} data-testid="order-quantity">
                    {formatQty(Math.abs(l.quantity))} <span className="text-xs text-slate-500">{unit}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Section>
  )
}

/** The projection over the item's open orders, then the orders themselves, in date order. */
function OpenOrders({ item, division }: { item: ItemDetails; division: number }) {
  const lines = useItemLines(item.ID)
  // the builders write ids in lower case
  const projection = useMemo(() => (lines.data ? projectItem(item.ID.toLowerCase(), lines.data) : null), [lines.data, item.ID])
  const unit = unitOf(item)
  if (lines.error) {
    return (
      <p role="alert" className="rounded bg-red-50 p-3 text-red-800">
        {t('item.ordersFailed', { message: userMessage(lines.error) })}
      </p>
    )
  }
  if (!projection) return <Loading />
  return (
    <>
      <Projection projection={projection} unit={unit} />
      {ORDER_LISTS.map((list) => (
        <Orders key={list.name} list={list} lines={projection.lines.filter((l) => l.kind === list.kind)} division={division} unit={unit} />
      ))}
    </>
  )
}

/** One item: what it is, where its stock is, and the open orders that make, need or sell it. */
export default function ItemPage() {
  const { data: session } = useSession()
  const [params] = useSearchParams()
  const id = params.get('id')?.trim() ?? ''
  const item = useItem(id)
  const missing = id === '' || item.data === null

  let body: ReactNode
  if (!session) body = <Loading />
  else if (missing) body = <NotFound />
  else if (item.error) {
    body = (
      <p role="alert" className="rounded bg-red-50 p-3 text-red-800">
        {t('item.loadFailed', { message: userMessage(item.error) })}
      </p>
    )
  } else if (!item.data) body = <LoadingScreen />
  else {
    body = (
      <>
        <Header item={item.data} division={session.division} />
        <StockSection item={item.data} />
        <OpenOrders item={item.data} division={session.division} />
      </>
    )
  }
  return (
    <div className="mx-auto flex w-full max-w-5xl flex-1 flex-col gap-4 p-3 md:p-6">
      {!missing && <BackLink />}
      {body}
    </div>
  )
}
