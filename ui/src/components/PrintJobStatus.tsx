// A print job sent to a network printer, followed until it ends, with a button to cancel it while
// it has not: a wrong batch of 500 labels is stopped before the roll runs out. Accepted is not
// printed: the job is shown queued until the printer says it printed it, or why it did not.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef } from 'react'
import { call, type Schema } from '../api/contract.ts'
import { t, tCount } from '../i18n/index.ts'
import { userMessage } from '../lib/errors.ts'
import { Button } from './ui/Button.tsx'

export type PrintJob = Schema<'JobView'>

/** How often a job that has not ended is asked for. */
export const JOB_POLL_MS = 2000

const ENDED: ReadonlySet<PrintJob['state']> = new Set(['completed', 'failed', 'cancelled'])

export const getPrintJob = (id: number) => call('get', '/printers/jobs/{id}', { params: { id } })
export const cancelPrintJob = (id: number) => call('post', '/printers/jobs/{id}/cancel', { params: { id } })

/** Where the job stands, in a sentence: queued, waiting for the printer, printing, printed, failed or cancelled. */
export function jobSentence(job: PrintJob): string {
  const params = { id: job.id, printer: job.printer }
  return job.state === 'completed' ? tCount('labels.job.completed', job.labels, params) : t(`labels.job.${job.state}`, params)
}

/** Green once printed, red when it failed, grey when cancelled; blue while it is on its way. */
function tone(state: PrintJob['state']): string {
  switch (state) {
    case 'completed':
      return 'bg-emerald-50 text-emerald-900'
    case 'failed':
      return 'bg-red-50 text-red-800'
    case 'cancelled':
      return 'bg-slate-100 text-slate-800'
    default:
      return 'bg-sky-50 text-sky-900'
  }
}

/**
 * The job as the server has it now, asked for every 2 s until it ends; `onEnd` hears once how it
 * ended (the handheld's sound), not when it was merely accepted.
 */
export function PrintJobStatus({ job: sent, onEnd }: { job: PrintJob; onEnd?: (job: PrintJob) => void }) {
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
  const told = useRef<number | null>(null)
  useEffect(() => {
    if (!ended || told.current === job.id) return
    told.current = job.id
    onEnd?.(job)
  }, [ended, job, onEnd])
  const reason =
    job.state === 'failed' ? t('labels.jobReason', { message: job.message ?? t('labels.jobNoReason') }) : job.state === 'completed' ? null : job.message

  return (
    <div role="status" className={`flex flex-col gap-1 rounded-md p-3 ${tone(job.state)}`} data-testid="print-job-status" data-state={job.state}>
      <p className="font-medium">
        {jobSentence(job)}
        {cancelling && ` ${t('labels.cancelling')}`}
      </p>
      {reason && <p className="text-sm">{reason}</p>}
      {!ended && !cancelling && (
        <Button type="button" variant="secondary" className="self-start text-slate-900" onClick={() => cancel.mutate()}>
          {t('labels.cancelJob', { id: job.id })}
        </Button>
      )}
      {cancel.error && (
        <p role="alert" className="text-sm text-red-700">
          {userMessage(cancel.error)}
        </p>
      )}
    </div>
  )
}
