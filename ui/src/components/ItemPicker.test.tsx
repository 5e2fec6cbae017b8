import { QueryClientProvider } from '@tanstack/react-query'
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createQueryClient } from '../api/queryClient.ts'
import { json } from '../test/fixtures.ts'
import { ItemPicker } from './ItemPicker.tsx'

const locations = [
  { ID: 'L1', Code: 'A01-04', Warehouse: 'w1', WarehouseCode: '1' },
  { ID: 'L2', Code: 'B10', Warehouse: 'w1', WarehouseCode: '1' },
]

function show(item: Parameters<typeof ItemPicker>[0]['item'] = null) {
  const onItem = vi.fn()
  const onLocation = vi.fn()
  render(
    <QueryClientProvider client={createQueryClient()}>
      <ItemPicker item={item} onItem={onItem} locations={locations} onLocation={onLocation} />
    </QueryClientProvider>,
  )
  const box = screen.getByLabelText('Item') as HTMLInputElement
  const scan = (code: string) => {
    fireEvent.change(box, { target: { value: code } })
    fireEvent.submit(box.closest('form')!)
  }
  return { onItem, onLocation, box, scan }
}

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

describe('the transfer scan box', () => {
  it('takes a scanned storage location code, in any case, without looking for an item', () => {
    const fetch = vi.fn(async () => json([]))
    vi.stubGlobal('fetch', fetch)
    const { onLocation, box, scan } = show({ ID: 'i1', Code: 'GS-1', Description: 'Bolt' })
    scan('b10\r')
    expect(onLocation).toHaveBeenCalledWith(locations[1])
    expect(fetch).not.toHaveBeenCalled()
    // cleared and still there for the next scan, with the item chosen
    expect(box.value).toBe('')
    expect(screen.getByTestId('transfer-item')).toBeTruthy()
  })

  it('finds an item by a barcode in any of its GTIN forms', async () => {
    const urls: string[] = []
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => {
        urls.push(decodeURIComponent(url))
        return json([{ ID: 'i1', Code: 'GS-1', Description: 'Bolt' }])
      }),
    )
    const { onItem, scan } = show()
    scan('08712345678906')
    await waitFor(() => expect(onItem).toHaveBeenCalledWith({ ID: 'i1', Code: 'GS-1', Description: 'Bolt' }))
    expect(urls[0]).toContain('Barcode.eq."8712345678906"')
  })

  it('says an order number is neither an item nor a location', () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json([])),
    )
    const { onItem, onLocation, scan } = show()
    scan('PO 40080')
    expect(screen.getByRole('alert').textContent).toBe('"PO 40080" is an order number: scan an item or a storage location.')
    expect(onItem).not.toHaveBeenCalled()
    expect(onLocation).not.toHaveBeenCalled()
  })
})
