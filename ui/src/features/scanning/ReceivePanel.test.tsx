import { QueryClientProvider } from '@tanstack/react-query'
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createQueryClient } from '../../api/queryClient.ts'
import { json, outboxEntry } from '../../test/fixtures.ts'
import type { OpenLine } from '../../lib/receipts.ts'
import type { ScannedItem } from '../../api/scan.ts'
import { ReceivePanel } from './ReceivePanel.tsx'
import { t } from '../../i18n/index.ts'

const feedback = vi.hoisted(() => ({ signal: vi.fn() }))
vi.mock('../../lib/feedback.ts', () => feedback)
const purchases = vi.hoisted(() => ({ fetchOpenLinesOfItem: vi.fn() }))
vi.mock('../../api/receipts.ts', () => purchases)

const item: ScannedItem = {
  ID: 'item-1',
  Code: 'GS-100200',
  Description: 'Kabelgoot',
  Barcode: '8712345678906',
  Unit: 'pc',
  PictureUrl: null,
  IsFractionAllowedItem: false,
}

const line = (over: Partial<OpenLine>): OpenLine => ({
  id: 'pol-1',
  orderId: 'po-1',
  orderNumber: '40080',
  supplier: 'S1 De Jong',
  warehouseId: 'WH-1',
  warehouse: '1',
  item: 'item-1',
  itemCode: 'GS-100200',
  itemDescription: 'Kabelgoot',
  barcode: '8712345678906',
  supplierItemCode: '',
  unit: 'pc',
  fractions: false,
  tracking: 'none',
  ordered: 10,
  received: 4,
  open: 6,
  due: null,
  ...over,
})

const here = { ID: 'loc-1', Code: 'A01-04', Warehouse: 'wh-1', WarehouseCode: '1' }

/** The calls made, and answers: no shop order makes the item; a booking is delivered. */
function stubServer() {
  const sent: { url: string; body: unknown }[] = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      if (init?.method === 'POST') {
        sent.push({ url, body: init.body ? JSON.parse(String(init.body)) : null })
        return json({ state: 'delivered', error: null, entries: [outboxEntry({ id: 4, action: 'createGoodsReceipt', state: 'delivered' })] })
      }
      return json([])
    }),
  )
  return sent
}

const show = (props: Partial<Parameters<typeof ReceivePanel>[0]> = {}) =>
  render(
    <QueryClientProvider client={createQueryClient()}>
      <ReceivePanel item={item} location={here} scanned={null} {...props} />
    </QueryClientProvider>,
  )

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
  purchases.fetchOpenLinesOfItem.mockReset()
})

describe('ReceivePanel', () => {
  it('receives the line of a scanned purchase order, what is open, at the location in its warehouse', async () => {
    purchases.fetchOpenLinesOfItem.mockResolvedValue({ rows: [line({})], asOf: null })
    const sent = stubServer()
    show({ scannedLine: line({}) })
    expect((screen.getByLabelText('Receive for') as HTMLSelectElement).value).toBe('po:pol-1')
    expect((screen.getByLabelText('Quantity') as HTMLInputElement).value).toBe('6')
    expect(screen.getByText('Into 1 · A01-04')).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Receive' }))
    await waitFor(() => expect(sent.length).toBe(1))
    expect(sent[0].url).toMatch(/^\/api\/v1\/exact\/createGoodsReceipt/)
    expect(sent[0].body).toEqual({ GoodsReceiptLines: [{ PurchaseOrderLineID: 'pol-1', QuantityReceived: 6, Location: 'loc-1' }] })
  })

  it('lists the open purchase order lines of the item and asks before receiving more than is open', async () => {
    purchases.fetchOpenLinesOfItem.mockResolvedValue({
      rows: [line({}), line({ id: 'pol-2', orderNumber: '40081', warehouseId: 'wh-2', warehouse: '2', open: 3 })],
      asOf: null,
    })
    const sent = stubServer()
    show()
    const choose = (await screen.findByRole('option', { name: /PO 40081/ })).closest('select') as HTMLSelectElement
    expect(screen.getByRole('group', { name: 'Purchase orders' })).toBeTruthy()
    fireEvent.change(choose, { target: { value: 'po:pol-2' } })
    expect((screen.getByLabelText('Quantity') as HTMLInputElement).value).toBe('3')
    // the location in context is in another warehouse: the order's own default
    expect(screen.getByText('Into the default location of warehouse 2')).toBeTruthy()
    fireEvent.change(screen.getByLabelText('Quantity'), { target: { value: '5' } })
    fireEvent.click(screen.getByRole('button', { name: 'Receive' }))
    expect(screen.getByText('5 is more than the 3 still open on PO 40081. Receive 5 anyway?')).toBeTruthy()
    expect(sent.length).toBe(0)
    fireEvent.click(screen.getByRole('button', { name: 'Receive anyway' }))
    await waitFor(() => expect(sent.length).toBe(1))
    expect(sent[0].body).toEqual({ GoodsReceiptLines: [{ PurchaseOrderLineID: 'pol-2', QuantityReceived: 5 }] })
  })

  it("says so when nothing is open to receive, and that purchase orders could not be read, in the catalogue's words", async () => {
    // the browser's own words for a call that got no answer never reach the worker
    purchases.fetchOpenLinesOfItem.mockRejectedValue(new TypeError('Failed to fetch'))
    stubServer()
    show()
    const said = await screen.findByText(/^Could not read the purchase orders from Exact Online: /)
    expect(said.textContent).toBe(`Could not read the purchase orders from Exact Online: ${t('error.network')}`)
    expect(said.textContent).not.toContain('Failed to fetch')
    expect(await screen.findByText('No open purchase order or shop order for this item.')).toBeTruthy()
  })
})
