import { QueryClientProvider } from '@tanstack/react-query'
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createQueryClient } from '../api/queryClient.ts'
import { json, printer, session } from '../test/fixtures.ts'
import { LabelActions } from './LabelActions.tsx'

const PRINTERS = [
  printer({ name: 'Desk' }),
  printer({ name: 'Floor', label_types: ['cnc-new', 'electrical-x4'] }),
  printer({ name: 'Receipts desk', label_types: ['receipts'] }),
]
const RESULT = { status: 'SUCCESS', labels: 6, messages: [] }

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
      const body = JSON.parse(String(init?.body)) as Record<string, unknown>
      sent.push({ url, body })
      if (url === '/api/v1/labels') {
        return new Response(new Blob(['%PDF-1.4']), { headers: { 'Content-Type': 'application/pdf', 'X-Label-Result': JSON.stringify(RESULT) } })
      }
      if (url === '/api/v1/labels/print') return json({ job: { id: 41, state: 'queued', printer: body.printer }, result: RESULT }, 202)
      return json({ error: { code: 'not_found', message: url } }, 404)
    }),
  )
  return sent
}

function show(ui: React.ReactElement) {
  render(<QueryClientProvider client={createQueryClient()}>{ui}</QueryClientProvider>)
}

const tab = { location: { href: '' }, close: vi.fn() }

beforeEach(() => {
  tab.location.href = ''
  vi.stubGlobal('open', vi.fn(() => tab))
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
    await within(section).findByText('Sent to Floor: print job 41, queued.')
    expect(sent).toEqual([
      { url: '/api/v1/labels/print', body: { source: 'shop_order', ids: ['so-1'], type: 'cnc-new', printer: 'Floor', copies: 3 } },
    ])
  })

  it('opens the PDF in the tab the click opened, with the type picked here and the copies of the batch', async () => {
    const sent = serve(SETTINGS)
    show(<LabelActions source="shop_order" ids={['so-1']} title="Labels" />)
    // the settings (3 copies) have loaded
    await screen.findByRole('button', { name: 'Print (3×)' })
    fireEvent.change(screen.getByLabelText('Label type'), { target: { value: 'electrical-NEW' } })
    fireEvent.click(screen.getByRole('button', { name: 'Open as PDF' }))
    expect(window.open).toHaveBeenCalledWith('', '_blank')
    await screen.findByText('SUCCESS: 6 label(s)')
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
    await screen.findByText('SUCCESS: 6 label(s)')
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
