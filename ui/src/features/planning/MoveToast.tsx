import { UndoToast } from '../../components/UndoToast.tsx'
import { t, type MessageKey } from '../../i18n/index.ts'
import { canUndo, moveText, type Move } from './logic/undo.ts'
import type { WriteRecord, WriteStatus } from './useShopOrderWrites.ts'

const STATE: Record<WriteStatus, MessageKey> = {
  sending: 'planning.write.sending',
  pending: 'planning.write.pending',
  delivered: 'planning.write.delivered',
  failed: 'planning.write.failed',
}

/** The state of a move's writes together: the worst of them. */
export function moveState(writes: readonly WriteRecord[]): WriteRecord | null {
  const order: WriteStatus[] = ['failed', 'sending', 'pending', 'delivered']
  for (const status of order) {
    const w = writes.find((x) => x.status === status)
    if (w) return w
  }
  return null
}

/**
 * The last move, where it went and how its write stands, with Undo while the orders still stand
 * where it put them. A refusal stays until closed: it says why the bar went back.
 */
export function MoveToast({
  move,
  writes,
  stands,
  onUndo,
  onClose,
}: {
  move: Move
  writes: readonly WriteRecord[]
  stands: boolean
  onUndo: () => void
  onClose: () => void
}) {
  const state = moveState(writes.filter((w) => w.move === move.id))
  const failed = state?.status === 'failed'
  return (
    <UndoToast
      restartOn={move.id}
      undoLabel={t('planning.undo.undo')}
      onUndo={canUndo(move) && stands && !failed ? onUndo : undefined}
      closeLabel={t('planning.undo.close')}
      onClose={onClose}
      stay={failed}
    >
      <p data-testid="move-text">{moveText(move)}</p>
      {state && (
        <p data-state={state.status} className={`text-xs ${failed ? 'font-semibold text-red-200' : 'text-slate-300'}`}>
          {t(STATE[state.status])}
          {failed && state.error && `: ${state.error}`}
        </p>
      )}
    </UndoToast>
  )
}
