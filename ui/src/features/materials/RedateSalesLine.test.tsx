import { QueryClientProvider } from '@tanstack/react-query'
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createQueryClient } from '../../api/queryClient.ts'
import type { BalanceLine } from '../../lib/shortage.ts'
import { json, outboxEntry } from '../../test/fixtures.ts'
import { RedateSalesLine } from './RedateSalesLine.tsx'

const line: BalanceLine = {
  kind: 'SO',
  item: 'i1',
  day: '2026-12-04',
  quantity: -3,
  warehouse: 'w1',
  project: '',
  refId: 'order-1',
  refNumber: '30012',
  lineId: 'line-7',
  balance: 4,
}

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

const show = (l: BalanceLine) =>
  render(
    <QueryClientProvider client={createQueryClient()}>
      <RedateSalesLine line={l} />
    </QueryClientProvider>,
  )

describe('RedateSalesLine', () => {
  it("moves a sales order line's delivery date through the outbox and shows its state", async () => {
    const sent: { url: string; method?: string; body: unknown }[] = []
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        sent.push({ url, method: init?.method, body: init?.body ? JSON.parse(String(init.body)) : null })
        return json({ state: 'delivered', error: null, entries: [outboxEntry({ id: 9, action: 'updateSalesOrderLine', state: 'delivered' })] })
      }),
    )
    show(line)
    fireEvent.click(screen.getByRole('button', { name: 'Move delivery date' }))
    const date = screen.getByLabelText('Delivery date of Sales order 30012') as HTMLInputElement
    expect(date.value).toBe('2026-12-04')
    fireEvent.change(date, { target: { value: '2026-12-11' } })
    fireEvent.click(screen.getByRole('button', { name: 'Save date' }))
    await waitFor(() => expect(sent.length).toBe(1))
    expect(sent[0].url).toMatch(/^\/api\/v1\/exact\/updateSalesOrderLine/)
    expect(sent[0]).toMatchObject({ method: 'PUT', body: { ID: 'line-7', DeliveryDate: '2026-12-11' } })
    await screen.findByTestId('write-status')
  })

  it('refuses an empty date, and offers nothing for a line it cannot name', () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json({})),
    )
    show(line)
    fireEvent.click(screen.getByRole('button', { name: 'Move delivery date' }))
    fireEvent.change(screen.getByLabelText('Delivery date of Sales order 30012'), { target: { value: '' } })
    fireEvent.click(screen.getByRole('button', { name: 'Save date' }))
    expect(screen.getByRole('alert').textContent).toBe('Enter a delivery date.')
    cleanup()
    show({ ...line, lineId: undefined })
    expect(screen.queryByRole('button', { name: 'Move delivery date' })).toBeNull()
  })
})
