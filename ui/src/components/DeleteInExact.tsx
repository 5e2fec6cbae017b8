import { useState } from 'react'
import { isApiError } from '../api/client.ts'
import { deleteFromExact, type Deletable, type WriteOutcome } from '../api/writes.ts'
import { t } from '../i18n/index.ts'
import { ConfirmDialog } from './ConfirmDialog.tsx'
import { useWriteState, WriteStatus } from './WriteStatus.tsx'

const NOTHING_SENT: WriteOutcome = { state: 'failed', message: null, entryIds: [] }

/**
 * Deletes one record in Exact Online after a yes: the outbox state shows until Exact answers,
 * then `onDeleted` takes the row away. A refusal keeps the row with Exact's message, and the
 * button comes back.
 */
export function DeleteInExact({
  endpoint,
  id,
  question,
  what,
  onDeleted,
}: {
  endpoint: Deletable
  id: string
  /** The confirmation, naming what goes. */
  question: string
  /** What the write status calls it ("Booking deleted"). */
  what: string
  onDeleted: () => void
}) {
  const [asking, setAsking] = useState(false)
  const [sending, setSending] = useState(false)
  const [outcome, setOutcome] = useState<WriteOutcome | null>(null)
  const [problem, setProblem] = useState<string | null>(null)

  const remove = async () => {
    setAsking(false)
    setSending(true)
    setProblem(null)
    try {
      setOutcome(await deleteFromExact(endpoint, id))
    } catch (e) {
      setProblem(isApiError(e) ? e.message : String(e))
    } finally {
      setSending(false)
    }
  }
  // followed here too, so a queued delete that Exact refuses later offers the button again
  const followed = useWriteState(outcome ?? NOTHING_SENT)
  const canAsk = !sending && (outcome === null || followed.state === 'failed')

  return (
    <div className="flex flex-col items-end gap-1" data-testid="delete-in-exact">
      {canAsk && (
        <button
          type="button"
          onClick={() => setAsking(true)}
          className="min-h-11 rounded border border-red-300 bg-white px-4 py-2 text-red-800 hover:bg-red-50 focus:ring-2 focus:ring-red-600 focus:outline-none"
        >
          {t('delete.button')}
        </button>
      )}
      {sending && <span className="text-sm text-slate-600">{t('delete.sending')}</span>}
      {outcome && <WriteStatus outcome={outcome} what={what} onDelivered={onDeleted} />}
      {problem && (
        <p role="alert" className="text-sm text-red-700">
          {problem}
        </p>
      )}
      {asking && (
        <ConfirmDialog message={question} noLabel={t('delete.no')} yesLabel={t('delete.yes')} onNo={() => setAsking(false)} onYes={() => void remove()} />
      )}
    </div>
  )
}
