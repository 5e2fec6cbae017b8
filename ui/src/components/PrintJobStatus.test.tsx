import { QueryClientProvider } from '@tanstack/react-query'
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createQueryClient } from '../api/queryClient.ts'
import { setLanguage } from '../i18n/index.ts'
import { json, printJob } from '../test/fixtures.ts'
import { PrintJobStatus, type PrintJob } from './PrintJobStatus.tsx'

const JOB: PrintJob = printJob({
  id: 7,
  printer: 'Desk',
  label_type: 'receipts',
  title: '500 labels (receipts)',
  labels: 500,
  state: 'rendering',
  state_text: 'Rendering',
})

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
  setLanguage('en', false)
})

/**
 * The server: the job as `now` says, and a cancel that answers `onCancel`'s job. `poll()` asks
 * for the job as the 2 s timer would.
 */
function serve(now: () => PrintJob, onCancel: () => [PrintJob, number] = () => [now(), 200], onEnd?: (job: PrintJob) => void) {
  const calls: string[] = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      calls.push(`${init?.method ?? 'GET'} ${url}`)
      if (url === '/api/v1/printers/jobs/7/cancel') {
        const [job, status] = onCancel()
        return json(job, status)
      }
      if (url === '/api/v1/printers/jobs/7') return json(now())
      return json({ error: { code: 'not_found', message: url } }, 404)
    }),
  )
  const client = createQueryClient()
  render(
    <QueryClientProvider client={client}>
      <PrintJobStatus job={{ ...JOB, state: 'queued', state_text: 'Queued' }} onEnd={onEnd} />
    </QueryClientProvider>,
  )
  const poll = () => act(() => client.refetchQueries({ queryKey: ['printJob', 7] }))
  return { calls, poll }
}

const status = () => screen.getByTestId('print-job-status')

describe('A print job on a network printer', () => {
  it('is followed from queued through printing to printed, never called done before the printer says so', async () => {
    let state: PrintJob = { ...JOB, state: 'queued', state_text: 'Queued' }
    const onEnd = vi.fn()
    const { poll } = serve(() => state, undefined, onEnd)
    await screen.findByText('Print job 7 is queued for Desk.')
    expect(status().getAttribute('data-state')).toBe('queued')
    expect(status().getAttribute('role')).toBe('status')

    state = { ...JOB, state: 'printing', state_text: 'Printing', printer_job_id: 3 }
    await poll()
    await screen.findByText('Desk is printing job 7.')
    expect(status().className).toContain('bg-sky-50')
    expect(screen.getByRole('button', { name: 'Cancel print job 7' })).toBeTruthy()
    expect(onEnd).not.toHaveBeenCalled()

    state = { ...JOB, state: 'completed', state_text: 'Completed', message: 'Printer job 3: Completed' }
    await poll()
    await screen.findByText('Desk printed job 7: 500 labels.')
    expect(status().getAttribute('data-state')).toBe('completed')
    expect(status().className).toContain('bg-emerald-50')
    expect(screen.queryByRole('button', { name: /Cancel print job/ })).toBeNull()
    // the printer's last word on a printed job is no news
    expect(screen.queryByText('Printer job 3: Completed')).toBeNull()
    expect(onEnd).toHaveBeenCalledTimes(1)
    expect(onEnd.mock.calls[0][0].state).toBe('completed')
    await poll()
    expect(onEnd).toHaveBeenCalledTimes(1)
    expect(document.body.textContent).not.toMatch(/SUCCESS/)
  })

  it('says a job failed with the printer’s reason, and that none was given', async () => {
    let state: PrintJob = { ...JOB, state: 'failed', state_text: 'Failed', message: 'The printer reports the job Aborted' }
    const onEnd = vi.fn()
    serve(() => state, undefined, onEnd)
    await screen.findByText('Print job 7 on Desk failed.')
    expect(screen.getByText('Reason: The printer reports the job Aborted')).toBeTruthy()
    expect(status().className).toContain('bg-red-50')
    expect(onEnd.mock.calls.map(([job]) => job.state)).toEqual(['failed'])
    cleanup()

    state = { ...JOB, state: 'failed', state_text: 'Failed', message: null }
    serve(() => state)
    await screen.findByText('Reason: The printer gave no reason.')
  })

  it('says the printer cannot be reached while the job waits for it', async () => {
    serve(() => ({ ...JOB, state: 'waiting_for_printer', state_text: 'Waiting for printer', message: 'Waiting for printer: connection refused' }))
    await screen.findByText('Print job 7 is waiting for Desk: the printer cannot be reached, so it is tried again.')
    expect(screen.getByText('Waiting for printer: connection refused')).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Cancel print job 7' })).toBeTruthy()
  })

  it('speaks Dutch', async () => {
    setLanguage('nl', false)
    let state: PrintJob = { ...JOB, state: 'queued', state_text: 'Queued' }
    const { poll } = serve(() => state)
    await screen.findByText('Printopdracht 7 staat in de wachtrij voor Desk.')
    state = { ...JOB, state: 'completed', state_text: 'Completed', labels: 1 }
    await poll()
    await screen.findByText('Desk heeft opdracht 7 afgedrukt: 1 etiket.')
  })

  it('is cancelled with its button and shows it is being cancelled until it has ended', async () => {
    let state: PrintJob = JOB
    const onEnd = vi.fn()
    const { calls, poll } = serve(
      () => state,
      () => {
        state = { ...JOB, cancelling: true }
        return [state, 202]
      },
      onEnd,
    )
    fireEvent.click(await screen.findByRole('button', { name: 'Cancel print job 7' }))
    await screen.findByText(/Cancelling…/)
    expect(screen.getByText('Print job 7: the labels for Desk are being made. Cancelling…')).toBeTruthy()
    expect(screen.queryByRole('button', { name: 'Cancel print job 7' })).toBeNull()
    expect(calls).toContain('POST /api/v1/printers/jobs/7/cancel')
    state = { ...JOB, state: 'cancelled', state_text: 'Cancelled', message: 'Cancelled by Anna' }
    await poll()
    await screen.findByText('Print job 7 for Desk was cancelled.')
    expect(screen.getByText('Cancelled by Anna')).toBeTruthy()
    expect(screen.queryByText(/Cancelling…/)).toBeNull()
    expect(onEnd.mock.calls.map(([job]) => job.state)).toEqual(['cancelled'])
  })

  it('says why a cancel was refused', async () => {
    serve(
      () => JOB,
      () => [{ error: { code: 'not_found', message: 'No print job 7' } } as unknown as PrintJob, 404],
    )
    fireEvent.click(await screen.findByRole('button', { name: 'Cancel print job 7' }))
    expect((await screen.findByRole('alert')).textContent).toContain('No print job 7')
  })
})
