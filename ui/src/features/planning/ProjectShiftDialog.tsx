import type { ShopOrder } from './api.ts'
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx'
import { t, tCount } from '../../i18n/index.ts'
import type { ProjectMove } from './logic/projectShift.ts'
import { dayIso } from './logic/timeline.ts'

const day = (d: number | null) => (d === null ? '–' : dayIso(d))

/** Asks before a project shift: every order that will move, with its dates before and after. */
export function ProjectShiftDialog({
  moves,
  days,
  skipWeekends,
  onNo,
  onYes,
}: {
  moves: ProjectMove<ShopOrder>[]
  days: number
  skipWeekends: boolean
  onNo: () => void
  onYes: () => void
}) {
  const project = moves[0].order.ProjectDescription || moves[0].order.Project || ''
  const amount = tCount(skipWeekends ? 'planning.shift.workdays' : 'planning.shift.days', Math.abs(days))
  return (
    <ConfirmDialog
      message={t(days < 0 ? 'planning.shift.questionEarlier' : 'planning.shift.questionLater', {
        count: moves.length,
        project,
        amount,
      })}
      noLabel={t('planning.shift.cancel')}
      yesLabel={t('planning.shift.confirm', { count: moves.length })}
      onNo={onNo}
      onYes={onYes}
    >
      <table className="w-full text-sm" data-testid="project-shift">
        <thead className="text-left text-slate-500">
          <tr>
            <th scope="col" className="py-1 pr-3 font-medium">
              {t('planning.column.order')}
            </th>
            <th scope="col" className="py-1 pr-3 font-medium">
              {t('planning.shift.description')}
            </th>
            <th scope="col" className="py-1 pr-3 font-medium">
              {t('planning.modal.start')}
            </th>
            <th scope="col" className="py-1 font-medium">
              {t('planning.modal.end')}
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-100">
          {moves.map((m) => (
            <tr key={m.order.ID} data-testid="project-shift-order" data-number={m.order.ShopOrderNumber}>
              <td className="py-1 pr-3 font-mono">{m.order.ShopOrderNumber}</td>
              <td className="max-w-56 truncate py-1 pr-3">{m.order.ItemDescription ?? m.order.Description ?? m.order.ItemCode ?? ''}</td>
              <td className="py-1 pr-3 whitespace-nowrap tabular-nums">
                {day(m.fromStart)} → {day(m.toStart)}
              </td>
              <td className="py-1 whitespace-nowrap tabular-nums">
                {day(m.fromEnd)} → {day(m.toEnd)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </ConfirmDialog>
  )
}
