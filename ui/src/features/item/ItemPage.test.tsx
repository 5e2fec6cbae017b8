import { QueryClientProvider } from '@tanstack/react-query'
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import { MemoryRouter, Route, Routes } from 'react-router'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createQueryClient } from '../../api/queryClient.ts'
import { StockTable } from '../../components/StockTable.tsx'
import { setLanguage } from '../../i18n/index.ts'
import { formatDay } from '../../lib/dateTime.ts'
import { json, session } from '../../test/fixtures.ts'
import ItemPage from './ItemPage.tsx'

const DIVISION = 3154102

const ITEM = {
  ID: 'item-1',
  Code: 'KAST-24',
  Description: 'Besturingskast 24V',
  Barcode: '8712345678906',
  Unit: 'pc',
  UnitDescription: 'Piece',
  ItemGroupCode: 'EL',
  ItemGroupDescription: 'Electrical',
  PictureUrl: 'https://start.exactonline.nl/docs/SysImage.aspx?ID=1',
  PictureThumbnailUrl: 'https://start.exactonline.nl/docs/SysImage.aspx?ID=1&thumb=1',
  EndDate: null,
}

/** Stock at one storage location of warehouse 1; warehouse 2 keeps the item without locations. */
const LOCATIONS = [
  {
    ID: 'sl-1',
    Item: 'item-1',
    Stock: 8,
    StorageLocation: 'loc-a',
    StorageLocationCode: 'A-01',
    StorageLocationDescription: 'Rack A',
    Warehouse: 'w1',
    WarehouseCode: '1',
    WarehouseDescription: 'Main',
  },
]
const POSITIONS = [
  { ID: 'sp-1', ItemId: 'item-1', CurrentStock: 8, FreeStock: 7, Warehouse: 'w1', WarehouseCode: '1', WarehouseDescription: 'Main' },
  { ID: 'sp-2', ItemId: 'item-1', CurrentStock: 4, FreeStock: 4, Warehouse: 'w2', WarehouseCode: '2', WarehouseDescription: 'Yard' },
]
/** Shop order 24005 still has 6 of its 10 to make. */
const MAKING = [
  {
    ID: 'so-1',
    ShopOrderNumber: 24005,
    Item: 'item-1',
    PlannedQuantity: 10,
    ProducedQuantity: 4,
    Status: 20,
    PlannedDate: '2026-12-04T00:00:00',
    Warehouse: 'w1',
  },
]
/** 24010 still needs 3 of its 5; 24011 has had all it needs. */
const NEEDING = [
  {
    order: { ID: 'so-2', ShopOrderNumber: 24010, Status: 10, Warehouse: 'w1', Project: null },
    plan: { ID: 'plan-1', ShopOrder: 'so-2', Item: 'item-1', PlannedQuantity: 5, IssuedQuantity: 2, PlannedDate: '2026-12-01T00:00:00', Status: 25, Type: 1 },
  },
  {
    order: { ID: 'so-3', ShopOrderNumber: 24011, Status: 20, Warehouse: 'w1', Project: null },
    plan: { ID: 'plan-2', ShopOrder: 'so-3', Item: 'item-1', PlannedQuantity: 4, IssuedQuantity: 4, PlannedDate: '2026-12-02T00:00:00', Status: 25, Type: 1 },
  },
]
/** Sales order 30012 still has 2 of its 3 to deliver. */
const SALES = [
  { ID: 'line-1', OrderID: 'order-1', OrderNumber: 30012, Item: 'item-1', Quantity: 3, QuantityDelivered: 1, DeliveryDate: '2026-12-10T00:00:00', Status: 20 },
]

interface Copy {
  items?: unknown[]
  sales?: unknown[]
  /** A refusal for the items read. */
  itemsFail?: boolean
}

/** The server's local copy as the page reads it; the paths asked are kept in `asked`. */
function serve({ items = [ITEM], sales = SALES, itemsFail = false }: Copy = {}) {
  const asked: string[] = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const u = new URL(url, 'http://localhost')
      const path = u.pathname.replace('/api/v1', '')
      asked.push(`${path}${u.search}`)
      if (path === '/auth/session') return json(session())
      if (path === '/db/items' && itemsFail) return json({ error: { code: 'table_info', message: 'The local copy could not be read.' } }, 400)
      if (path === '/db/items') return json(items)
      if (path === '/db/storageLocationStockPositions') return json(LOCATIONS)
      if (path === '/db/stockPositions') return json(POSITIONS)
      if (path === '/db/shopOrders') return json(MAKING)
      if (path === '/scanning/ordersNeeding') return json(NEEDING)
      if (path === '/db/salesOrderLines') return json(sales)
      if (path === '/db/salesOrderHeaders') return json([{ OrderID: 'order-1', WarehouseID: 'w1' }])
      if (path.startsWith('/exact/live/')) return json([])
      return json({ error: { code: '-', message: `unexpected ${path}` } }, 404)
    }),
  )
  return asked
}

const show = (path = `/item?division=${DIVISION}&id=item-1`) =>
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/item" element={<ItemPage />} />
          <Route path="/dashboard" element={<StockTable division={DIVISION} />} />
          <Route path="/purchaseOverview" element={<p>Purchases screen</p>} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  )

/** The rows of an order list as [order, date, quantity]. */
const rowsOf = (testId: string) =>
  within(screen.getByTestId(testId))
    .getAllByRole('row')
    .slice(1)
    .map((r) =>
      within(r)
        .getAllByRole('cell')
        .map((c) => c.textContent?.replace(/\s+/g, ' ').trim()),
    )

beforeEach(() => {
  setLanguage('en', false)
  // the Dashboard's wide table (the way back from the page leads there)
  vi.stubGlobal('matchMedia', (query: string) => ({ matches: true, media: query, addEventListener: () => {}, removeEventListener: () => {} }))
})

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
  vi.restoreAllMocks()
})

describe('ItemPage', () => {
  it('shows the item: code, description, group, unit, picture and its pages in Exact Online', async () => {
    serve()
    show()
    expect((await screen.findByTestId('item-code')).textContent).toBe('KAST-24')
    expect(screen.getByTestId('item-description').textContent).toBe('Besturingskast 24V')
    expect(screen.getByTestId('item-group').textContent).toBe('EL Electrical')
    expect(screen.getByTestId('item-unit').textContent).toBe('Piece')
    expect(screen.getByRole('img', { name: 'Picture of KAST-24' }).getAttribute('src')).toBe('/api/v1/pictures/item-1')
    expect(screen.getByRole('link', { name: /^Item card/ }).getAttribute('href')).toContain('/docs/LogItemCard.aspx?ItemID=%7Bitem-1%7D&_Division_=3154102')
    expect(screen.getByRole('link', { name: /^Inventory transactions/ }).getAttribute('href')).toContain('/docs/LogStockTransactions.aspx?Item=%7Bitem-1%7D')
    expect(screen.getByRole('button', { name: 'Copy KAST-24' })).toBeTruthy()
  })

  it('shows a neutral icon for an item without a picture', async () => {
    serve({ items: [{ ...ITEM, PictureUrl: null }] })
    show()
    await screen.findByTestId('item-code')
    expect(screen.getByRole('img', { name: 'No picture' }).tagName).toBe('SPAN')
  })

  it('lists the stock per storage location and per warehouse without locations, with the total', async () => {
    serve()
    show()
    const table = await screen.findByTestId('item-stock')
    const rows = within(table)
      .getAllByRole('row')
      .slice(1, -1)
      .map((r) =>
        within(r)
          .getAllByRole('cell')
          .map((c) => c.textContent),
      )
    expect(rows).toEqual([
      ['A-01Rack A', '1', '8'],
      ['(no location)', '2', '4'],
    ])
    expect(screen.getByTestId('item-stock-total').textContent).toBe('12 Piece')
  })

  it('lists the open shop orders making it, those needing it and the open sales lines, with dates and what is left', async () => {
    serve()
    show()
    await screen.findByTestId('item-made')
    expect(rowsOf('item-made')).toEqual([['24005', formatDay('2026-12-04'), '6 Piece']])
    // the fully issued line of 24011 needs nothing any more
    expect(rowsOf('item-needed')).toEqual([['24010', formatDay('2026-12-01'), '3 Piece']])
    expect(rowsOf('item-sold')).toEqual([['30012', formatDay('2026-12-10'), '2 Piece']])
    expect(
      within(screen.getByTestId('item-sold'))
        .getByRole('link', { name: /^30012/ })
        .getAttribute('href'),
    ).toContain('/docs/SlsSalesOrder.aspx?ID=%7Border-1%7D')
  })

  it('projects the free stock over the open orders, and sends the user to Purchases for purchase orders', async () => {
    serve()
    show()
    // free 7 + 4, −3 needed, +6 made, −2 sold
    expect((await screen.findByTestId('item-projected')).textContent).toBe('Projected stock after every open order: 12 Piece')
    expect(screen.getByTestId('item-projection').textContent).toContain('Free stock 11, 6 still to be made, 5 still needed or to deliver.')
    expect(screen.getByText('The stock covers every open order on its date.')).toBeTruthy()
    const note = screen.getByTestId('item-purchases-note')
    expect(note.textContent).toContain('Purchase order lines: see Purchases.')
    const purchases = within(note).getByRole('link', { name: 'Purchases' })
    expect(purchases.getAttribute('href')).toBe(`/purchaseOverview?division=${DIVISION}`)
    fireEvent.click(purchases)
    await screen.findByText('Purchases screen')
  })

  it('says from which day the item runs short', async () => {
    serve({ sales: [{ ...SALES[0], Quantity: 30 }] })
    show()
    expect((await screen.findByTestId('item-short-from')).textContent).toBe(`Short from ${formatDay('2026-12-10')}: -15 Piece.`)
    expect(screen.getByTestId('item-projected').textContent).toBe('Projected stock after every open order: -15 Piece')
  })

  it('says plainly that an unknown item is not in the local copy, and reads nothing more', async () => {
    const asked = serve({ items: [] })
    show(`/item?division=${DIVISION}&id=0badc0de-0000-4000-8000-00000000dead`)
    expect((await screen.findByRole('heading', { level: 1 })).textContent).toBe('This item is not in the local copy')
    fireEvent.click(screen.getByRole('link', { name: /Back to the Dashboard/ }))
    await waitFor(() => expect(screen.queryByTestId('item-not-found')).toBeNull())
    expect(asked.some((p) => /storageLocationStockPositions|ordersNeeding|salesOrderLines/.test(p))).toBe(false)
  })

  it('treats an address without an id as an unknown item', async () => {
    const asked = serve()
    show(`/item?division=${DIVISION}`)
    expect((await screen.findByTestId('item-not-found')).textContent).toContain('This item is not in the local copy')
    expect(asked.some((p) => p.startsWith('/db/items'))).toBe(false)
  })

  it("shows the catalogue's message when the local copy cannot be read", async () => {
    serve({ itemsFail: true })
    show()
    expect((await screen.findByRole('alert')).textContent).toBe('The item could not be read: The local copy could not be read.')
  })

  it('speaks Dutch', async () => {
    setLanguage('nl', false)
    serve({ items: [] })
    show(`/item?division=${DIVISION}&id=item-9`)
    expect((await screen.findByRole('heading', { level: 1 })).textContent).toBe('Dit artikel staat niet in de lokale kopie')
    expect(screen.getByRole('link', { name: /Terug naar het dashboard/ }).getAttribute('href')).toBe(`/dashboard?division=${DIVISION}`)
  })
})

describe('the Dashboard row', () => {
  // a scroll box the virtualizer can fill with rows (jsdom lays nothing out)
  beforeEach(() => {
    vi.spyOn(Element.prototype, 'clientHeight', 'get').mockReturnValue(600)
    vi.spyOn(Element.prototype, 'clientWidth', 'get').mockReturnValue(1400)
  })

  it("opens the item's page from its code, and keeps Exact's item card in the links column", async () => {
    serve()
    show(`/dashboard?division=${DIVISION}`)
    const code = await screen.findByRole('link', { name: 'KAST-24' })
    expect(code.getAttribute('href')).toBe(`/item?division=${DIVISION}&id=item-1`)
    const row = code.closest('[role=row]') as HTMLElement
    const cells = within(row).getAllByRole('cell')
    // the code cell holds the code's link only; Exact's pages are in the last column
    expect(
      within(cells[1])
        .getAllByRole('link')
        .map((a) => a.textContent),
    ).toEqual(['KAST-24'])
    expect(
      within(cells[6])
        .getAllByRole('link')
        .map((a) => a.getAttribute('href')),
    ).toEqual([expect.stringContaining('/docs/LogItemCard.aspx'), expect.stringContaining('/docs/LogStockTransactions.aspx')])
    expect(within(row).getByRole('button', { name: 'Copy KAST-24' })).toBeTruthy()
    fireEvent.click(code)
    expect((await screen.findByTestId('item-code')).textContent).toBe('KAST-24')
  })

  it("on a handheld's narrow row, has Exact's item card beside the code's link", async () => {
    vi.stubGlobal('matchMedia', (query: string) => ({ matches: false, media: query, addEventListener: () => {}, removeEventListener: () => {} }))
    serve()
    show(`/dashboard?division=${DIVISION}`)
    const code = await screen.findByRole('link', { name: 'KAST-24' })
    expect(code.getAttribute('href')).toBe(`/item?division=${DIVISION}&id=item-1`)
    const row = code.closest('[role=row]') as HTMLElement
    expect(within(row).getByRole('link', { name: 'Item card' }).getAttribute('href')).toContain('/docs/LogItemCard.aspx?ItemID=%7Bitem-1%7D')
    expect(within(row).getByRole('button', { name: 'Copy KAST-24' })).toBeTruthy()
  })
})
