import { QueryClientProvider } from '@tanstack/react-query'
import { cleanup, fireEvent, render, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { AS_OF_HEADER } from '../../api/client.ts'
import { createQueryClient } from '../../api/queryClient.ts'
import { setLanguage } from '../../i18n/index.ts'
import { formatAsOf } from '../../lib/dateTime.ts'
import { json, session } from '../../test/fixtures.ts'
import Receipts from './Receipts.tsx'

const STORED = new Date(2026, 10, 24, 13, 5).getTime()
const OLDER = new Date(2026, 10, 24, 11, 40).getTime()
const ORDER = '11111111-1111-1111-1111-111111111111'
const RECEIPT = '22222222-2222-2222-2222-222222222222'

function dated(body: unknown, asOf: number): Response {
  const r = json(body)
  r.headers.set(AS_OF_HEADER, String(asOf))
  return r
}

/** The server during an outage: every live read comes from its stored copy. */
function stored(url: string): Response {
  const direct = decodeURIComponent(url)
  if (url === '/api/v1/auth/session') return json(session())
  if (url.startsWith('/api/v1/exact/live/storageLocations')) return dated([{ ID: 'l1', Code: 'A1', Description: 'Rack A1', Warehouse: 'w1' }], OLDER)
  if (direct.includes('GoodsReceiptLines')) return dated({ responseDirect: { results: [] } }, STORED)
  if (direct.includes('GoodsReceipts')) return dated({ responseDirect: { results: [{ ID: RECEIPT, ReceiptNumber: 7, SupplierName: 'Staal BV' }] } }, STORED)
  if (direct.includes('PurchaseOrderLines'))
    return dated({ responseDirect: { results: [{ ID: 'pl1', PurchaseOrderID: ORDER, ItemCode: 'BOLT-8', Quantity: 10, ReceivedQuantity: 0 }] } }, STORED)
  if (direct.includes('PurchaseOrders')) return dated({ responseDirect: { results: [{ PurchaseOrderID: ORDER, OrderNumber: 1234, Warehouse: 'w1' }] } }, STORED)
  return json({ error: { code: 'not_found', message: url } }, 404)
}

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
  delete (Element.prototype as Partial<Element>).scrollIntoView
  setLanguage('en', false)
})

describe('Receipts during an outage', () => {
  it('dates the receipts and the Receive goods modal by the stored copy', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => stored(url)),
    )
    render(
      <QueryClientProvider client={createQueryClient()}>
        <Receipts />
      </QueryClientProvider>,
    )
    expect((await screen.findByTestId('as-of')).textContent).toBe(`Exact Online cannot be reached: shown as of ${formatAsOf(STORED)}`)
    fireEvent.click(screen.getByRole('button', { name: 'Receive goods' }))
    const modal = screen.getByRole('dialog', { hidden: true })
    await within(modal).findByTestId('open-line-count')
    // the open lines and the locations together are as old as the older of them
    expect((await within(modal).findByTestId('as-of')).textContent).toBe(`As of ${formatAsOf(OLDER)}`)
  })

  it('shows the server’s message when Exact Online cannot be reached and nothing is stored', async () => {
    const message = 'Exact Online cannot be reached right now: this needs Exact Online, local data and queued changes keep working'
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => (url === '/api/v1/auth/session' ? json(session()) : json({ error: { code: 'provider_unreachable', message } }, 503))),
    )
    render(
      <QueryClientProvider client={createQueryClient()}>
        <Receipts />
      </QueryClientProvider>,
    )
    expect((await screen.findByRole('alert')).textContent).toContain(message)
    expect(screen.queryByText('Loading…')).toBeNull()
  })

  it('opens the labels panel below the list, so ticking a line moves no other line', async () => {
    const withLines = (url: string): Response => {
      const direct = decodeURIComponent(url)
      if (direct.includes('GoodsReceiptLines'))
        return dated(
          {
            responseDirect: {
              results: [1, 2].map((n) => ({
                ID: `line-${n}`,
                GoodsReceiptID: RECEIPT,
                Item: `item-${n}`,
                ItemCode: `BOLT-${n}`,
                QuantityReceived: n,
                PurchaseOrderNumber: 1234,
              })),
            },
          },
          STORED,
        )
      if (url.startsWith('/api/v1/db/')) return json([])
      return stored(url)
    }
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => withLines(url)),
    )
    render(
      <QueryClientProvider client={createQueryClient()}>
        <Receipts />
      </QueryClientProvider>,
    )
    fireEvent.click(await screen.findByRole('checkbox', { name: 'Pick BOLT-1 for labels' }))
    const panel = await screen.findByTestId('print-panel')
    const next = screen.getByRole('checkbox', { name: 'Pick BOLT-2 for labels' })
    expect(next.compareDocumentPosition(panel) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy()
  })
})

describe('The print bar of Receipts', () => {
  it('holds a "Print labels (N)" bar at the bottom of the screen that goes to the panel, and clears the choice', async () => {
    const lines = (url: string): Response => {
      const direct = decodeURIComponent(url)
      if (direct.includes('GoodsReceiptLines'))
        return dated(
          {
            responseDirect: {
              results: [1, 2, 3].map((n) => ({ ID: `line-${n}`, GoodsReceiptID: RECEIPT, Item: `item-${n}`, ItemCode: `BOLT-${n}`, QuantityReceived: n })),
            },
          },
          STORED,
        )
      if (url.startsWith('/api/v1/db/')) return json([])
      return stored(url)
    }
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => lines(url)),
    )
    // jsdom lays nothing out: the scroll is recorded
    const scrolled: Element[] = []
    Element.prototype.scrollIntoView = function (this: Element) {
      scrolled.push(this)
    }
    render(
      <QueryClientProvider client={createQueryClient()}>
        <Receipts />
      </QueryClientProvider>,
    )
    await screen.findByRole('checkbox', { name: 'Pick BOLT-1 for labels' })
    // nothing picked, no bar
    expect(screen.queryByTestId('print-bar')).toBeNull()
    fireEvent.click(screen.getByRole('checkbox', { name: 'Pick BOLT-1 for labels' }))
    fireEvent.click(screen.getByRole('checkbox', { name: 'Pick BOLT-3 for labels' }))
    const bar = screen.getByTestId('print-bar')
    expect(bar.className).toMatch(/(^| )sticky( |$)/)
    expect(bar.className).toMatch(/(^| )bottom-0( |$)/)
    // between the list and the panel: it rests on the panel once the list has scrolled by
    const panel = screen.getByTestId('print-panel')
    const lastLine = screen.getByRole('checkbox', { name: 'Pick BOLT-3 for labels' })
    expect(lastLine.compareDocumentPosition(bar) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy()
    expect(bar.compareDocumentPosition(panel) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy()

    fireEvent.click(within(bar).getByRole('button', { name: 'Print labels (2)' }))
    expect(scrolled).toEqual([panel])
    expect(document.activeElement).toBe(within(panel).getByRole('heading', { name: 'Labels for 2 line(s)' }))

    fireEvent.click(within(bar).getByRole('button', { name: 'Clear selection' }))
    expect(screen.queryByTestId('print-bar')).toBeNull()
    expect(screen.queryByTestId('print-panel')).toBeNull()
    expect((screen.getByRole('checkbox', { name: 'Pick BOLT-1 for labels' }) as HTMLInputElement).checked).toBe(false)
  })

  it('says "Etiketten afdrukken" on the bar in Dutch', async () => {
    setLanguage('nl', false)
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        const direct = decodeURIComponent(url)
        if (direct.includes('GoodsReceiptLines'))
          return dated(
            { responseDirect: { results: [{ ID: 'line-1', GoodsReceiptID: RECEIPT, Item: 'item-1', ItemCode: 'BOLT-1', QuantityReceived: 1 }] } },
            STORED,
          )
        if (url.startsWith('/api/v1/db/')) return json([])
        return stored(url)
      }),
    )
    render(
      <QueryClientProvider client={createQueryClient()}>
        <Receipts />
      </QueryClientProvider>,
    )
    fireEvent.click(await screen.findByRole('checkbox', { name: 'BOLT-1 kiezen voor etiketten' }))
    expect(within(screen.getByTestId('print-bar')).getByRole('button', { name: 'Etiketten afdrukken (1)' })).toBeTruthy()
  })
})

describe('A long list of receipts', () => {
  /** 120 receipts of one supplier, each with one line of the one open order. */
  function many(url: string): Response {
    const direct = decodeURIComponent(url)
    if (direct.includes('GoodsReceipts')) {
      const results = Array.from({ length: 120 }, (_, i) => ({ ID: `r-${i}`, ReceiptNumber: 1000 - i, SupplierName: 'Staal BV' }))
      return dated({ responseDirect: { results } }, STORED)
    }
    return stored(url)
  }

  it('shows 50 receipts at first and 50 more on each click, the search looking through all of them', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => many(url)),
    )
    render(
      <QueryClientProvider client={createQueryClient()}>
        <Receipts />
      </QueryClientProvider>,
    )
    expect((await screen.findByTestId('receipt-count')).textContent).toBe('120 of 120 receipts')
    expect(screen.getAllByTestId('receipt')).toHaveLength(50)
    fireEvent.click(screen.getByRole('button', { name: 'Show 50 more (70 not shown)' }))
    expect(screen.getAllByTestId('receipt')).toHaveLength(100)
    fireEvent.click(screen.getByRole('button', { name: 'Show 20 more (20 not shown)' }))
    expect(screen.getAllByTestId('receipt')).toHaveLength(120)
    expect(screen.queryByRole('button', { name: /more/ })).toBeNull()
    // the last receipt of the list is found by its number though it was never on screen before
    fireEvent.change(screen.getByLabelText('Search receipts'), { target: { value: '881' } })
    expect(screen.getAllByTestId('receipt').map((r) => within(r).getByText(/^Receipt /).textContent)).toEqual(['Receipt 881'])
  })
})

describe('Receipts of a busy month', () => {
  it('lists the receipts before their lines, and reads the lines of those on screen first', async () => {
    const ids = Array.from({ length: 60 }, (_, n) => `33333333-3333-4333-8333-${String(n).padStart(12, '0')}`)
    const lineCalls: string[][] = []
    let answerLines: () => void = () => {}
    const linesWait = new Promise<void>((resolve) => (answerLines = resolve))
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        const direct = decodeURIComponent(url)
        if (url === '/api/v1/auth/session') return json(session())
        if (direct.includes('GoodsReceiptLines')) {
          const asked = ids.filter((id) => direct.includes(id))
          lineCalls.push(asked)
          await linesWait
          return json({
            responseDirect: { results: asked.map((id) => ({ ID: `line-${id}`, GoodsReceiptID: id, ItemCode: `IT-${id.slice(-2)}`, QuantityReceived: 1 })) },
          })
        }
        if (direct.includes('GoodsReceipts'))
          return json({
            responseDirect: { results: ids.map((ID, n) => ({ ID, ReceiptNumber: 100 + n, ReceiptDate: `/Date(${Date.UTC(2026, 10, 1 + (n % 28))})/` })) },
          })
        return json([])
      }),
    )
    render(
      <QueryClientProvider client={createQueryClient()}>
        <Receipts />
      </QueryClientProvider>,
    )
    // the count and the first cards come with the receipts alone
    expect((await screen.findByTestId('receipt-count')).textContent).toBe('60 of 60 receipts')
    expect(screen.getAllByTestId('receipt')).toHaveLength(50)
    expect(screen.getAllByTestId('receipt-lines-reading')).toHaveLength(50)
    // the 50 on screen, 40 a call; the other 10 wait for them
    await vi.waitFor(() => expect(lineCalls.flat()).toHaveLength(50))
    answerLines()
    await screen.findAllByRole('checkbox')
    await vi.waitFor(() => expect(lineCalls.flat()).toHaveLength(110))
    expect(new Set(lineCalls.slice(2).flat())).toEqual(new Set(ids))
    await vi.waitFor(() => expect(screen.queryAllByTestId('receipt-lines-reading')).toHaveLength(0))
    expect(screen.getAllByRole('checkbox')).toHaveLength(50)
    // every line is read: the next ten show theirs with no read of their own
    fireEvent.click(screen.getByRole('button', { name: /Show 10 more/ }))
    await vi.waitFor(() => expect(screen.getAllByRole('checkbox')).toHaveLength(60))
    expect(lineCalls.flat()).toHaveLength(110)
  })
})
