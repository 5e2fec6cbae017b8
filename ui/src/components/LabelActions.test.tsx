import { QueryClientProvider } from '@tanstack/react-query'
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createQueryClient } from '../api/queryClient.ts'
import { json, printer, printJob, session } from '../test/fixtures.ts'
import { LabelActions } from './LabelActions.tsx'
import type { PrintJob } from './PrintJobStatus.tsx'

const PRINTERS = [
  printer({ name: 'Desk' }),
  printer({ name: 'Floor', label_types: ['cnc-new', 'electrical-x4'] }),
  printer({ name: 'Receipts desk', label_types: ['receipts'] }),
]
const RESULT = { status: 'SUCCESS', labels: 6, messages: [] }

/** What a poll of job 41 answers. */
let polled: PrintJob = printJob({})

interface Sent {
  url: string
  body: Record<string, unknown>
}

function serve(preferences: Record<string, unknown>): Sent[] {
  const sent: Sent[] = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      if (url === '/api/v1/auth/session') return json(session({ organizationDetails: { ...session().organizationDetails, preferences } }))
      if (url === '/api/v1/printers') return json(PRINTERS)
      if (url === '/api/v1/printers/jobs/41') return json(polled)
      const body = JSON.parse(String(init?.body)) as Record<string, unknown>
      sent.push({ url, body })
      if (url === '/api/v1/labels') {
        return new Response(new Blob(['%PDF-1.4']), { headers: { 'Content-Type': 'application/pdf', 'X-Label-Result': JSON.stringify(RESULT) } })
      }
      if (url === '/api/v1/labels/print') return json({ job: printJob({ printer: String(body.printer) }), result: RESULT }, 202)
      return json({ error: { code: 'not_found', message: url } }, 404)
    }),
  )
  return sent
}

function show(ui: React.ReactElement) {
  const client = createQueryClient()
  render(<QueryClientProvider client={client}>{ui}</QueryClientProvider>)
  return client
}

const tab = { location: { href: '' }, close: vi.fn() }

beforeEach(() => {
  polled = printJob({})
  tab.location.href = ''
  vi.stubGlobal(
    'open',
    vi.fn(() => tab),
  )
  URL.createObjectURL = vi.fn(() => 'blob:labels')
  URL.revokeObjectURL = vi.fn()
})

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

const SETTINGS = { label_type_shop_order: 'cnc-new', label_type_item: 'electrical-x4', default_printer: 'Floor', label_copies: 3 }

describe('LabelActions takes Global Settings', () => {
  it("prints a shop order's labels with its type on the default printer, the copies as copies of the batch", async () => {
    const sent = serve(SETTINGS)
    show(<LabelActions source="shop_order" ids={['so-1']} title="Labels of shop order 7" />)
    const section = screen.getByRole('region', { name: 'Labels of shop order 7' })
    const printer = (await within(section).findByLabelText('Printer')) as HTMLSelectElement
    await waitFor(() => expect(printer.value).toBe('Floor'))
    expect((within(section).getByLabelText('Label type') as HTMLSelectElement).value).toBe('cnc-new')
    // the receipts-only printer holds no cnc-new labels
    expect([...printer.options].map((o) => o.value)).toEqual(['', 'Desk', 'Floor'])

    fireEvent.click(within(section).getByRole('button', { name: 'Print (3×)' }))
    await within(section).findByText('Print job 41 is queued for Floor.')
    expect(sent).toEqual([{ url: '/api/v1/labels/print', body: { source: 'shop_order', ids: ['so-1'], type: 'cnc-new', printer: 'Floor', copies: 3 } }])
  })

  it('opens the PDF in the tab the click opened, with the type picked here and the copies of the batch', async () => {
    const sent = serve(SETTINGS)
    show(<LabelActions source="shop_order" ids={['so-1']} title="Labels" />)
    // the settings (3 copies) have loaded
    await screen.findByRole('button', { name: 'Print (3×)' })
    fireEvent.change(screen.getByLabelText('Label type'), { target: { value: 'electrical-NEW' } })
    fireEvent.click(screen.getByRole('button', { name: 'Open as PDF' }))
    expect(window.open).toHaveBeenCalledWith('', '_blank')
    await screen.findByText('6 labels made.')
    expect(tab.location.href).toBe('blob:labels')
    expect(sent).toEqual([{ url: '/api/v1/labels', body: { source: 'shop_order', ids: ['so-1'], type: 'electrical-NEW', copies: 3 } }])
  })

  it("puts an item label's copies into its print count, for the PDF and the printer alike", async () => {
    const sent = serve(SETTINGS)
    show(<LabelActions source="item_direct" ids={['it-1']} title="Label" />)
    const printer = (await screen.findByLabelText('Printer')) as HTMLSelectElement
    await waitFor(() => expect(printer.value).toBe('Floor'))
    expect((screen.getByLabelText('Label type') as HTMLSelectElement).value).toBe('electrical-x4')
    fireEvent.click(screen.getByRole('button', { name: 'Open as PDF' }))
    await screen.findByText('6 labels made.')
    fireEvent.click(screen.getByRole('button', { name: 'Print (3×)' }))
    await screen.findByRole('status')
    const ids = [{ id: 'it-1', print_count: 3 }]
    expect(sent).toEqual([
      { url: '/api/v1/labels', body: { source: 'item_direct', ids, type: 'electrical-x4' } },
      { url: '/api/v1/labels/print', body: { source: 'item_direct', ids, type: 'electrical-x4', printer: 'Floor' } },
    ])
  })

  it('preselects no printer when the default one cannot print the type, and takes the first type by default', async () => {
    serve({ default_printer: 'Receipts desk' })
    show(<LabelActions source="shop_order" ids={['so-1']} title="Labels" />)
    const printer = (await screen.findByLabelText('Printer')) as HTMLSelectElement
    expect((screen.getByLabelText('Label type') as HTMLSelectElement).value).toBe('electrical-72001926')
    expect([...printer.options].map((o) => o.value)).toEqual(['', 'Desk'])
    expect(printer.value).toBe('')
    expect((screen.getByRole('button', { name: 'Print (1×)' }) as HTMLButtonElement).disabled).toBe(true)
  })

  it("shows the server's refusal and closes the tab that waited for the PDF", async () => {
    serve(SETTINGS)
    vi.mocked(fetch).mockImplementation(async (url) =>
      String(url) === '/api/v1/printers'
        ? json([])
        : String(url) === '/api/v1/auth/session'
          ? json(session())
          : json({ error: { code: 'no_labels', message: 'There are no labels to print that fit the desired criteria' } }, 422),
    )
    show(<LabelActions source="shop_order" ids={['so-1']} title="Labels" />)
    await screen.findByText('No printer for this label type is set up: use the PDF.')
    fireEvent.click(screen.getByRole('button', { name: 'Open as PDF' }))
    expect((await screen.findByRole('alert')).textContent).toBe('There are no labels to print that fit the desired criteria')
    expect(tab.close).toHaveBeenCalled()
  })
})

describe('LabelActions names label types and follows the print job', () => {
  it('lists the label types by their names and sizes, sending the type’s own value', async () => {
    const sent = serve(SETTINGS)
    show(<LabelActions source="shop_order" ids={['so-1']} title="Labels" />)
    await screen.findByRole('button', { name: 'Print (3×)' })
    const type = screen.getByLabelText('Label type') as HTMLSelectElement
    expect([...type.options].map((o) => o.textContent)).toEqual([
      'Electrical 72001926 (45 × 30 mm, 2 per sheet)',
      'Electrical 72001925 (45 × 20 mm, 4 per sheet)',
      'Electrical x4 (45 × 20 mm, 4 per sheet)',
      'Electrical sticker NEW (70 × 50 mm)',
      'CNC (100 × 23 mm)',
      'Goods receipt (76.2 × 44.45 mm)',
    ])
    expect(type.selectedOptions[0].textContent).toBe('CNC (100 × 23 mm)')
    fireEvent.change(type, { target: { value: 'electrical-NEW' } })
    fireEvent.click(screen.getByRole('button', { name: 'Open as PDF' }))
    await screen.findByText('6 labels made.')
    expect(sent[0].body.type).toBe('electrical-NEW')
  })

  it('lists a type Global Settings saved by number once, by its name', async () => {
    const sent = serve({ label_type_shop_order: '6' })
    show(<LabelActions source="shop_order" ids={['so-1']} title="Labels" />)
    await screen.findByRole('button', { name: 'Print (1×)' })
    const type = screen.getByLabelText('Label type') as HTMLSelectElement
    expect(type.options).toHaveLength(6)
    expect(type.selectedOptions[0].textContent).toBe('CNC (100 × 23 mm)')
    fireEvent.click(screen.getByRole('button', { name: 'Open as PDF' }))
    await screen.findByText('6 labels made.')
    expect(sent[0].body.type).toBe('cnc-new')
  })

  it('shows a queued print as queued, not as a success, and sounds only once it has printed', async () => {
    serve(SETTINGS)
    const onOutcome = vi.fn()
    const client = show(<LabelActions source="shop_order" ids={['so-1']} title="Labels" onOutcome={onOutcome} />)
    const printer = (await screen.findByLabelText('Printer')) as HTMLSelectElement
    await waitFor(() => expect(printer.value).toBe('Floor'))
    fireEvent.click(screen.getByRole('button', { name: 'Print (3×)' }))
    const status = await screen.findByRole('status')
    await within(status).findByText('Print job 41 is queued for Floor.')
    expect(status.className).not.toContain('emerald')
    expect(screen.getByTestId('label-print-job').textContent).not.toMatch(/SUCCESS/)
    expect(screen.getByText('6 labels in this print job.')).toBeTruthy()
    expect(onOutcome).not.toHaveBeenCalled()

    polled = printJob({ state: 'completed', state_text: 'Completed' })
    await act(() => client.refetchQueries({ queryKey: ['printJob', 41] }))
    await within(status).findByText('Floor printed job 41: 6 labels.')
    expect(onOutcome.mock.calls).toEqual([[true]])
  })

  it('sounds a failure when the printer fails the job', async () => {
    serve(SETTINGS)
    polled = printJob({ state: 'failed', state_text: 'Failed', message: 'The printer reports the job Aborted' })
    const onOutcome = vi.fn()
    show(<LabelActions source="shop_order" ids={['so-1']} title="Labels" onOutcome={onOutcome} />)
    const printer = (await screen.findByLabelText('Printer')) as HTMLSelectElement
    await waitFor(() => expect(printer.value).toBe('Floor'))
    fireEvent.click(screen.getByRole('button', { name: 'Print (3×)' }))
    await screen.findByText('Print job 41 on Floor failed.')
    expect(screen.getByText('Reason: The printer reports the job Aborted')).toBeTruthy()
    await waitFor(() => expect(onOutcome.mock.calls).toEqual([[false]]))
  })

  it('says what was left out of the labels in words', async () => {
    serve(SETTINGS)
    vi.mocked(fetch).mockImplementation(async (url) =>
      String(url) === '/api/v1/labels'
        ? new Response(new Blob(['%PDF-1.4']), {
            headers: { 'X-Label-Result': JSON.stringify({ status: 'WARNING', labels: 1, messages: ["Skipped ZV-1: items with 'ZV'"] }) },
          })
        : String(url) === '/api/v1/auth/session'
          ? json(session())
          : json(PRINTERS),
    )
    show(<LabelActions source="shop_order" ids={['so-1']} title="Labels" />)
    await screen.findByRole('button', { name: 'Print (1×)' })
    fireEvent.click(screen.getByRole('button', { name: 'Open as PDF' }))
    await screen.findByText('1 label made.')
    expect(screen.getByText("Skipped ZV-1: items with 'ZV'")).toBeTruthy()
    expect(screen.getByTestId('label-result').textContent).not.toMatch(/WARNING/)
  })
})
