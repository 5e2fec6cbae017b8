import { QueryClientProvider } from '@tanstack/react-query'
import { cleanup, fireEvent, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createQueryClient } from '../api/queryClient.ts'
import { json } from '../test/fixtures.ts'
import { PrintJobStatus, type PrintJob } from './PrintJobStatus.tsx'

const JOB: PrintJob = {
  id: 7,
  printer: 'Desk',
  label_type: 'receipts',
  title: '500 labels (receipts)',
  labels: 500,
  state: 'rendering',
  state_text: 'Rendering',
  cancelling: false,
  message: null,
  attempts: 0,
  format: null,
  printer_job_id: null,
  created: '2026-11-28T08:00:00Z',
  updated: '2026-11-28T08:00:00Z',
}

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

/** The server: the job as `now` says, and a cancel that answers `onCancel`'s job. */
function serve(now: () => PrintJob, onCancel: () => [PrintJob, number]) {
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
  render(
    <QueryClientProvider client={createQueryClient()}>
      <PrintJobStatus job={JOB} />
    </QueryClientProvider>,
  )
  return calls
}

describe('A print job on a network printer', () => {
  it('is cancelled with its button and shows it is being cancelled until it has ended', async () => {
    let state: PrintJob = JOB
    const calls = serve(
      () => state,
      () => {
        state = { ...JOB, cancelling: true }
        return [state, 202]
      },
    )
    fireEvent.click(await screen.findByRole('button', { name: 'Cancel print job 7' }))
    await screen.findByText(/Cancelling…/)
    expect(screen.queryByRole('button', { name: 'Cancel print job 7' })).toBeNull()
    expect(calls).toContain('POST /api/v1/printers/jobs/7/cancel')
    state = { ...JOB, state: 'cancelled', state_text: 'Cancelled', message: 'Cancelled by Anna' }
    await screen.findByText('Sent to Desk: print job 7, cancelled.', {}, { timeout: 5000 })
    expect(screen.getByText('Cancelled by Anna')).toBeTruthy()
    expect(screen.queryByText(/Cancelling…/)).toBeNull()
  })

  it('offers no cancel once it has printed', async () => {
    serve(
      () => ({ ...JOB, state: 'completed', state_text: 'Completed' }),
      () => [JOB, 200],
    )
    await screen.findByText('Sent to Desk: print job 7, printed.', {}, { timeout: 5000 })
    expect(screen.queryByRole('button', { name: /Cancel print job/ })).toBeNull()
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
