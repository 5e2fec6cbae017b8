import { ExternalLink } from '../../components/ExternalLink.tsx'
import { RedateSalesLine } from './RedateSalesLine.tsx'
import { InfoTip, Tooltip } from '../../components/Tooltip.tsx'
import { t } from '../../i18n/index.ts'
import { formatDay } from '../../lib/dateTime.ts'
import { formatQty } from '../../lib/quantity.ts'
import { useIsWide } from '../../lib/media.ts'
import type { ExactPage } from '../../lib/exactLinks.ts'
import type { BalanceLine, ItemProjection, LineKind } from '../../lib/shortage.ts'

const KIND_STYLE: Record<LineKind, string> = {
  FI: 'bg-slate-200 text-slate-800',
  PO: 'bg-sky-100 text-sky-900',
  MA: 'bg-emerald-100 text-emerald-900',
  MS: 'bg-amber-100 text-amber-900',
  SO: 'bg-violet-100 text-violet-900',
}

const KIND_PAGE: Partial<Record<LineKind, ExactPage>> = { PO: 'purchaseOrder', MA: 'shopOrder', MS: 'shopOrder', SO: 'salesOrder' }

/** The two-letter kind of a line; the tooltip spells it out. */
export function KindBadge({ kind }: { kind: LineKind }) {
  return (
    <Tooltip text={t(`materials.kind.${kind}`)} align="start">
      <span
        tabIndex={0}
        data-kind={kind}
        className={`inline-block w-9 rounded px-1.5 py-0.5 text-center font-mono text-xs font-semibold focus:ring-2 focus:ring-sky-600 focus:outline-none ${KIND_STYLE[kind]}`}
      >
        {kind}
      </span>
    </Tooltip>
  )
}

function Reference({ line, division }: { line: BalanceLine; division: number }) {
  const page = KIND_PAGE[line.kind]
  if (!page || !line.refId) return <span className="text-slate-600">{t('materials.line.warehouse', { code: line.refNumber })}</span>
  return (
    <ExternalLink page={page} division={division} id={line.refId} code={line.refNumber}>
      {line.refNumber}
    </ExternalLink>
  )
}

function When({ line, today }: { line: BalanceLine; today: string }) {
  return (
    <>
      {line.day ? formatDay(line.day) : line.kind === 'FI' ? '' : t('materials.noDate')}
      {line.day && line.day < today && line.quantity < 0 && <span className="ml-2 rounded bg-red-100 px-1 text-xs text-red-800">{t('materials.overdue')}</span>}
    </>
  )
}

/** Handhelds: one compact block per line instead of a table wider than the screen. */
function NarrowLines({ projection, division, today }: { projection: ItemProjection; division: number; today: string }) {
  return (
    <ul className="rounded border border-slate-200 bg-white text-sm" data-testid="material-lines">
      <li className="flex items-center gap-2 px-3 py-2 text-xs text-slate-600">
        <InfoTip label={t('materials.abbreviations')} text={t('materials.abbreviationsText')} align="start" />
        {t('materials.abbreviations')}
      </li>
      {projection.lines.map((l, i) => (
        <li
          key={`${l.kind}-${l.refId}-${i}`}
          data-kind={l.kind}
          data-day={l.day ?? ''}
          data-ref={l.refNumber}
          className={`flex flex-wrap items-center gap-x-3 gap-y-1 border-t border-slate-100 px-3 py-2 ${l.balance < 0 ? 'bg-red-50' : ''}`}
        >
          <KindBadge kind={l.kind} />
          <span className="flex-1 whitespace-nowrap">
            <When line={l} today={today} />
            {l.kind === 'SO' && <RedateSalesLine line={l} />}
          </span>
          <Reference line={l} division={division} />
          <span className="flex w-full justify-end gap-4 tabular-nums">
            <span className={l.quantity < 0 ? 'text-red-800' : 'text-emerald-800'}>{formatQty(l.quantity, true)}</span>
            <span data-testid="line-balance" className={`font-semibold ${l.balance < 0 ? 'text-red-700' : ''}`}>
              {formatQty(l.balance)}
            </span>
          </span>
        </li>
      ))}
    </ul>
  )
}

/** The drill-down of one material: its lines in date order with the balance after each. */
export function MaterialLines({ projection, division, today }: { projection: ItemProjection; division: number; today: string }) {
  const wide = useIsWide()
  if (!wide) return <NarrowLines projection={projection} division={division} today={today} />
  return (
    <div className="overflow-x-auto rounded border border-slate-200 bg-white" data-testid="material-lines">
      <table className="w-full text-sm">
        <thead className="bg-slate-50 text-left text-xs text-slate-600">
          <tr>
            <th className="px-3 py-2">
              <span className="inline-flex items-center gap-2">
                {t('materials.line.kind')}
                <InfoTip label={t('materials.abbreviations')} text={t('materials.abbreviationsText')} align="start" />
              </span>
            </th>
            <th className="px-3 py-2">{t('materials.line.date')}</th>
            <th className="px-3 py-2">{t('materials.line.reference')}</th>
            <th className="px-3 py-2 text-right">{t('materials.line.quantity')}</th>
            <th className="px-3 py-2 text-right">{t('materials.line.balance')}</th>
          </tr>
        </thead>
        <tbody>
          {projection.lines.map((l, i) => (
            <tr
              key={`${l.kind}-${l.refId}-${i}`}
              data-kind={l.kind}
              data-day={l.day ?? ''}
              data-ref={l.refNumber}
              className={`border-t border-slate-100 ${l.balance < 0 ? 'bg-red-50' : ''}`}
            >
              <td className="px-3 py-2">
                <KindBadge kind={l.kind} />
              </td>
              <td className="px-3 py-2 whitespace-nowrap">
                <When line={l} today={today} />
                {l.kind === 'SO' && (
                  <span className="ml-2">
                    <RedateSalesLine line={l} />
                  </span>
                )}
              </td>
              <td className="px-3 py-2">
                <Reference line={l} division={division} />
              </td>
              <td className={`px-3 py-2 text-right tabular-nums ${l.quantity < 0 ? 'text-red-800' : 'text-emerald-800'}`}>{formatQty(l.quantity, true)}</td>
              <td data-testid="line-balance" className={`px-3 py-2 text-right font-semibold tabular-nums ${l.balance < 0 ? 'text-red-700' : ''}`}>
                {formatQty(l.balance)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
