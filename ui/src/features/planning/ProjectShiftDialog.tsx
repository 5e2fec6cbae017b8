import type { ShopOrder } from './api.ts'
import { ConfirmDialog } from '../../components/ConfirmDialog.tsx'
import { t, tCount } from '../../i18n/index.ts'
import type { ProjectMove } from './logic/projectShift.ts'
import { dayIso } from './logic/timeline.ts'
import { DataTable } from '../../components/ui/DataTable.tsx'

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
      <DataTable
        tableProps={{ 'data-testid': 'project-shift' }}
        columns={[
          {
            key: 'order',
            header: t('planning.column.order'),
            headerClassName: 'py-1 pr-3 font-medium',
            className: 'py-1 pr-3 font-mono',
            cell: (m) => m.order.ShopOrderNumber,
          },
          {
            key: 'description',
            header: t('planning.shift.description'),
            headerClassName: 'py-1 pr-3 font-medium',
            className: 'max-w-56 truncate py-1 pr-3',
            cell: (m) => m.order.ItemDescription ?? m.order.Description ?? m.order.ItemCode ?? '',
          },
          {
            key: 'start',
            header: t('planning.modal.start'),
            headerClassName: 'py-1 pr-3 font-medium',
            className: 'py-1 pr-3 whitespace-nowrap tabular-nums',
            cell: (m) => (
              <>
                {day(m.fromStart)} → {day(m.toStart)}
              </>
            ),
          },
          {
            key: 'end',
            header: t('planning.modal.end'),
            headerClassName: 'py-1 font-medium',
            className: 'py-1 whitespace-nowrap tabular-nums',
            cell: (m) => (
              <>
                {day(m.fromEnd)} → {day(m.toEnd)}
              </>
            ),
          },
        ]}
        rows={moves}
        rowKey={(m) => m.order.ID}
        rowProps={(m) => ({ 'data-testid': 'project-shift-order', 'data-number': String(m.order.ShopOrderNumber) })}
      />
    </ConfirmDialog>
  )
}
