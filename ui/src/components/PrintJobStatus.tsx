// A print job sent to a network printer, followed until it ends, with a button to cancel it while
// it has not: a wrong batch of 500 labels is stopped before the roll runs out.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { call, type Schema } from '../api/contract.ts'
import { t } from '../i18n/index.ts'
import { secondaryButton } from './formStyles.ts'

export type PrintJob = Schema<'JobView'>

/** How often a job that has not ended is asked for. */
export const JOB_POLL_MS = 2000

const ENDED: ReadonlySet<PrintJob['state']> = new Set(['completed', 'failed', 'cancelled'])

export const getPrintJob = (id: number) => call('get', '/printers/jobs/{id}', { params: { id } })
export const cancelPrintJob = (id: number) => call('post', '/printers/jobs/{id}/cancel', { params: { id } })

export function PrintJobStatus({ job: sent }: { job: PrintJob }) {
  const queryClient = useQueryClient()
  const key = ['printJob', sent.id]
  const followed = useQuery({
    queryKey: key,
    queryFn: () => getPrintJob(sent.id),
    initialData: sent,
    refetchInterval: (q) => (q.state.data && ENDED.has(q.state.data.state) ? false : JOB_POLL_MS),
  })
  const cancel = useMutation({
    mutationFn: () => cancelPrintJob(sent.id),
    // the answer is the job as it stands now; polling goes on while it is still being cancelled
    onSuccess: (job) => queryClient.setQueryData(key, job),
  })
  const job = followed.data
  const ended = ENDED.has(job.state)
  const cancelling = !ended && (job.cancelling || cancel.isPending)
  return (
    <div className="flex flex-col gap-1" data-testid="print-job-status">
      <p>
        {t('labels.sent', { printer: job.printer, id: job.id, state: t(`labels.job.${job.state}`) })}
        {cancelling && ` ${t('labels.cancelling')}`}
      </p>
      {job.message && job.state !== 'completed' && <p className="text-sm">{job.message}</p>}
      {!ended && !cancelling && (
        <button type="button" className={`${secondaryButton} self-start`} onClick={() => cancel.mutate()}>
          {t('labels.cancelJob', { id: job.id })}
        </button>
      )}
      {cancel.error && (
        <p role="alert" className="text-sm text-red-700">
          {cancel.error.message}
        </p>
      )}
    </div>
  )
}
