import { QueryClientProvider } from '@tanstack/react-query'
import { cleanup, render, screen, within } from '@testing-library/react'
import type { ReactElement } from 'react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createQueryClient } from '../../api/queryClient.ts'
import { json, session } from '../../test/fixtures.ts'
import { ItemCard } from './ItemCard.tsx'

beforeEach(() => {
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => json(session())),
  )
})

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

const show = (ui: ReactElement) => render(<QueryClientProvider client={createQueryClient()}>{ui}</QueryClientProvider>)

const ITEM = { ID: 'item-1', Code: 'BOLT-8', Description: 'Bolt M8', Barcode: null, Unit: 'pc', PictureUrl: null }

describe('ItemCard', () => {
  it('shows the stock of a warehouse without storage locations instead of "No stock"', () => {
    show(
      <ItemCard
        item={ITEM}
        stock={[]}
        warehouses={[{ ID: 'sp', ItemId: 'item-1', CurrentStock: 12, Warehouse: 'w2', WarehouseCode: '2', WarehouseDescription: 'Yard' }]}
        stockLoading={false}
        location={null}
        division={1}
      />,
    )
    const table = screen.getByTestId('item-stock')
    const cells = within(table)
      .getAllByRole('cell')
      .map((c) => c.textContent)
    expect(cells).toEqual(['(no location)', '2', '12', '12'])
    expect(screen.queryByText('No stock')).toBeNull()
  })

  it('says "No stock" when neither a location nor a warehouse holds the item', () => {
    show(<ItemCard item={ITEM} stock={[]} warehouses={[]} stockLoading={false} location={null} division={1} />)
    screen.getByText('No stock in any warehouse.')
  })

  it('shows the total stock beside the code, then its children (the actions), then the table', () => {
    show(
      <ItemCard
        item={ITEM}
        stock={[]}
        warehouses={[
          { ID: 'a', ItemId: 'item-1', CurrentStock: 12, Warehouse: 'w2', WarehouseCode: '2', WarehouseDescription: 'Yard' },
          { ID: 'b', ItemId: 'item-1', CurrentStock: 3, Warehouse: 'w3', WarehouseCode: '3', WarehouseDescription: 'Hall' },
        ]}
        stockLoading={false}
        location={null}
        division={1}
      >
        <button type="button">Issue</button>
      </ItemCard>,
    )
    expect(screen.getByTestId('item-total').textContent).toBe('Stock: 15 pc')
    const card = screen.getByTestId('item-card')
    const order = [screen.getByTestId('item-total'), screen.getByRole('button', { name: 'Issue' }), screen.getByTestId('item-stock')]
    const positions = order.map((el) => [...card.querySelectorAll('*')].indexOf(el))
    expect(positions).toEqual([...positions].sort((a, b) => a - b))
  })

  it('leaves out what was issued here and is not yet in Exact’s figures, and says so', () => {
    const warehouses = [{ ID: 'a', ItemId: 'item-1', CurrentStock: 261, Warehouse: 'w2', WarehouseCode: '2', WarehouseDescription: 'Yard' }]
    show(<ItemCard item={{ ...ITEM, Unit: 'kg' }} stock={[]} warehouses={warehouses} stockLoading={false} location={null} division={1} waiting={2} />)
    expect(screen.getByTestId('item-total').textContent).toBe('Stock: 259 kgafter 2 kg issued here, not yet booked in Exact Online')
    expect(screen.getByTestId('item-waiting').textContent).toBe('after 2 kg issued here, not yet booked in Exact Online')
  })
})
