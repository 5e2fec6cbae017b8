import { QueryClientProvider } from '@tanstack/react-query'
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createQueryClient } from '../../api/queryClient.ts'
import { json, outboxEntry } from '../../test/fixtures.ts'
import type { MaterialPlan, ScanShopOrder } from '../../api/scan.ts'
import { ByProductPanel } from './ByProductPanel.tsx'

const feedback = vi.hoisted(() => ({ signal: vi.fn() }))
vi.mock('../../lib/feedback.ts', () => feedback)

const order: ScanShopOrder = {
  ID: 'so-1',
  ShopOrderNumber: 24501,
  Item: 'made-1',
  ItemCode: 'EP-900001',
  ItemDescription: 'Besturingskast',
  PlannedQuantity: 3,
  ProducedQuantity: 0,
  Status: 10,
  Warehouse: 'wh-1',
  WarehouseCode: '1',
}

const line = (over: Partial<MaterialPlan>): MaterialPlan => ({
  ID: 'plan-9',
  ShopOrder: 'so-1',
  Item: 'rest-1',
  ItemCode: 'GS-900003',
  ItemDescription: 'Lasdraad',
  PlannedQuantity: 2.5,
  Unit: 'kg',
  Type: 2,
  Status: 10,
  IsSerial: 0,
  IsBatch: 0,
  ...over,
})

const show = (lines: MaterialPlan[]) =>
  render(
    <QueryClientProvider client={createQueryClient()}>
      <ByProductPanel order={order} lines={lines} into={null} />
    </QueryClientProvider>,
  )

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

describe('ByProductPanel', () => {
  it('opens on request with the only line chosen and books a by-product receipt of its planned quantity', async () => {
    const sent: { url: string; body: unknown }[] = []
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        sent.push({ url, body: init?.body ? JSON.parse(String(init.body)) : null })
        return json({ state: 'delivered', error: null, entries: [outboxEntry({ id: 3, action: 'createByProductReceipt', state: 'delivered' })] })
      }),
    )
    show([line({})])
    expect(screen.queryByLabelText('Quantity')).toBeNull()
    fireEvent.click(screen.getByRole('button', { name: 'Receive a by-product (1)…' }))
    expect((screen.getByLabelText('By-product') as HTMLSelectElement).value).toBe('plan-9')
    expect((screen.getByLabelText('Quantity') as HTMLInputElement).value).toBe('2.5')
    fireEvent.click(screen.getByRole('button', { name: 'Receive by-product' }))
    await waitFor(() => expect(sent.length).toBe(1))
    expect(sent[0].url).toMatch(/^\/api\/v1\/exact\/createByProductReceipt/)
    expect(sent[0].body).toMatchObject({ ShopOrderMaterialPlan: 'plan-9', Quantity: 2.5 })
    await screen.findByTestId('write-status')
    // booked: the form closes (its numbers input no longer takes scans), the outcome stays
    expect(screen.queryByLabelText('Quantity')).toBeNull()
    expect(screen.getByRole('button', { name: 'Receive a by-product (1)…' })).toBeTruthy()
  })

  it('asks a serial-tracked by-product for its numbers before it can be booked', () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json({})),
    )
    show([line({ IsSerial: 1, PlannedQuantity: 1 }), line({ ID: 'plan-10', ItemCode: 'GS-900004' })])
    fireEvent.click(screen.getByRole('button', { name: 'Receive a by-product (2)…' }))
    const choose = screen.getByLabelText('By-product') as HTMLSelectElement
    expect(choose.value).toBe('')
    fireEvent.click(screen.getByRole('button', { name: 'Receive by-product' }))
    expect(screen.getByText('Choose the by-product.').getAttribute('role')).toBe('alert')
    fireEvent.change(choose, { target: { value: 'plan-9' } })
    expect(screen.getByTestId('serial-progress').textContent).toBe('0 of 1')
    expect((screen.getByRole('button', { name: 'Receive by-product' }) as HTMLButtonElement).disabled).toBe(true)
  })
})
