import { QueryClientProvider } from '@tanstack/react-query'
import { cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createQueryClient } from '../../api/queryClient.ts'
import { json } from '../../test/fixtures.ts'
import { SalesLines } from './SalesLines.tsx'

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

describe('SalesLines', () => {
  it('links each sales order line to its order in Exact Online', async () => {
    const order = '5f3c2a10-0000-4000-8000-000000000001'
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) =>
        String(url).includes('/db/salesOrderLines')
          ? json([
              {
                ID: 'l1',
                OrderID: order,
                OrderNumber: 30012,
                LineNumber: 1,
                ItemCode: 'EP-900001',
                Quantity: 2,
                QuantityDelivered: 0,
                DeliveryDate: null,
                Status: 12,
                DeliveryStatus: 12,
              },
            ])
          : json({}, 404),
      ),
    )
    render(
      <QueryClientProvider client={createQueryClient()}>
        <SalesLines orderId="so-1" division={3154102} />
      </QueryClientProvider>,
    )
    const link = await screen.findByRole('link', { name: /30012/ })
    expect(link.getAttribute('href')).toBe(`https://start.exactonline.nl/docs/SlsSalesOrder.aspx?ID=%7B${order}%7D&_Division_=3154102`)
    expect(link.getAttribute('target')).toBe('_blank')
  })
})
