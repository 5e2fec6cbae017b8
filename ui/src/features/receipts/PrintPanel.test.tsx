import { QueryClientProvider } from '@tanstack/react-query'
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createQueryClient } from '../../api/queryClient.ts'
import type { ReceiptLine } from '../../lib/receipts.ts'
import { json, printer, printJob, session } from '../../test/fixtures.ts'
import type { PrintJob } from '../../components/PrintJobStatus.tsx'
import { PrintPanel } from './PrintPanel.tsx'

const LINES: ReceiptLine[] = [
  { id: 'line-1', receiptId: 'r1', item: 'item-1', itemCode: 'BOLT-8', itemDescription: 'Bolt M8', quantity: 10, orderNumber: '1234', location: '' },
  { id: 'line-2', receiptId: 'r1', item: 'item-2', itemCode: 'NUT-8', itemDescription: 'Nut M8', quantity: 5, orderNumber: '1234', location: '' },
]
const PRINTERS = [
  printer({ name: 'Desk', label_types: ['electrical-x4'] }),
  printer({ name: 'Floor', label_types: ['cnc-new'] }),
  printer({ name: 'Receipts desk' }),
]

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

/** Job 9 on Floor, 7 labels, in `state`. */
const job = (state: PrintJob['state']): PrintJob => printJob({ id: 9, title: 'Goods receipt labels', labels: 7, state, state_text: state })

/** What a poll of job 9 finds. */
let polled: PrintJob['state'] = 'queued'

function serve(preferences: Record<string, unknown>) {
  polled = 'queued'
  const printed: unknown[] = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      if (url === '/api/v1/auth/session') return json(session({ organizationDetails: { ...session().organizationDetails, preferences } }))
      if (url === '/api/v1/printers') return json(PRINTERS)
      if (url.startsWith('/api/v1/db/joins')) return json([])
      if (url.startsWith('/api/v1/db/items'))
        return json([
          { ID: 'ITEM-2', IsSerialItem: true, IsBatchItem: 0 },
          { ID: 'item-1', IsSerialItem: false, IsBatchItem: 1 },
        ])
      if (url === '/api/v1/labels/print') {
        printed.push(JSON.parse(String(init?.body)))
        return json({ job: job('queued'), result: { status: 'SUCCESS', labels: 7, messages: [] } }, 202)
      }
      if (url === '/api/v1/printers/jobs/9') return json(job(polled))
      return json({ error: { code: 'not_found', message: url } }, 404)
    }),
  )
  const client = createQueryClient()
  render(
    <QueryClientProvider client={client}>
      <PrintPanel lines={LINES} division={1} onRemove={() => {}} />
    </QueryClientProvider>,
  )
  const poll = () => act(() => client.refetchQueries({ queryKey: ['printJob', 9] }))
  return { printed, poll }
}

describe('Receipt labels take Global Settings', () => {
  it('start with the receipt label type, the default printer and the copies as each line’s count', async () => {
    const { printed, poll } = serve({ label_type_receipt: 'cnc-new', default_printer: 'Floor', label_copies: 2 })
    const printer = (await screen.findByLabelText('Printer')) as HTMLSelectElement
    await waitFor(() => expect(printer.value).toBe('Floor'))
    expect((screen.getByLabelText('Label type') as HTMLSelectElement).value).toBe('cnc-new')
    // only printers that hold cnc-new labels (or any) are offered
    expect([...printer.options].map((o) => o.value)).toEqual(['', 'Floor', 'Receipts desk'])
    expect(screen.getAllByLabelText('Labels').map((i) => (i as HTMLInputElement).value)).toEqual(['2', '2'])
    // a count changed by hand is what is printed
    fireEvent.change(screen.getAllByLabelText('Labels')[1], { target: { value: '5' } })
    fireEvent.click(screen.getByRole('button', { name: 'Print' }))
    const job = await screen.findByTestId('print-job')
    // accepted is not printed: queued until the printer has printed it
    await within(job).findByText('Print job 9 is queued for Floor.')
    expect(job.textContent).not.toMatch(/SUCCESS/)
    expect(within(job).getByText('7 labels in this print job.')).toBeTruthy()
    polled = 'printing'
    await poll()
    await within(job).findByText('Floor is printing job 9.')
    polled = 'completed'
    await poll()
    await within(job).findByText('Floor printed job 9: 7 labels.')
    expect(printed).toEqual([
      {
        source: 'goods_receipt',
        ids: [
          { id: 'line-1', print_count: 2 },
          { id: 'line-2', print_count: 5 },
        ],
        type: 'cnc-new',
        printer: 'Floor',
      },
    ])
  })

  it('use the spec’s receipt label and one label per line when nothing is saved', async () => {
    serve({})
    const printer = (await screen.findByLabelText('Printer')) as HTMLSelectElement
    await screen.findByRole('option', { name: 'Receipts desk (idle)' })
    expect(printer.value).toBe('')
    const type = screen.getByLabelText('Label type') as HTMLSelectElement
    expect(type.value).toBe('receipts')
    expect(type.selectedOptions[0].textContent).toBe('Goods receipt (76.2 × 44.45 mm)')
    expect(screen.getAllByLabelText('Labels').map((i) => (i as HTMLInputElement).value)).toEqual(['1', '1'])
  })

  it('say that a tracked item’s line prints its labels per serial number or per batch', async () => {
    serve({})
    await waitFor(() => expect(screen.getAllByTestId('label-per-number')).toHaveLength(2))
    const [batch, serial] = screen.getAllByTestId('print-line').map((l) => l.querySelector('[data-testid=label-per-number]')?.textContent)
    expect(batch).toMatch(/^A batch item/)
    expect(serial).toMatch(/^A serial item/)
  })
})
