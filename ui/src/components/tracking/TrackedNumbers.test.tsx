import { QueryClientProvider } from '@tanstack/react-query'
import { act, cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import type { ReactElement } from 'react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createQueryClient } from '../../api/queryClient.ts'
import { json } from '../../test/fixtures.ts'
import type { TrackingNumbers } from '../../api/tracking.ts'
import { BatchPicker } from './BatchPicker.tsx'
import type { NumbersReport, StockBatch } from '../../lib/tracking.ts'
import { routeScan } from './scans.ts'
import { SerialNumbersInput } from './SerialNumbersInput.tsx'

const show = (ui: ReactElement) => render(<QueryClientProvider client={createQueryClient()}>{ui}</QueryClientProvider>)

const batch = (number: string, quantity: number, expiry: string | null): StockBatch => ({
  number,
  quantity,
  expiry,
  warehouse: 'w1',
  warehouse_code: '1',
  location: 'l1',
  location_code: 'A-01',
})

const answer = (batches: StockBatch[]): TrackingNumbers => ({ item: 'item-1', tracking: 'batch', serials: [], batches })

/** The last report the component gave. */
function reports() {
  const seen: NumbersReport[] = []
  return { onReport: (r: NumbersReport) => void seen.push(r), last: () => seen[seen.length - 1] }
}

beforeEach(() => {
  localStorage.clear()
})

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

describe('SerialNumbersInput', () => {
  it('fills from scans, refuses a duplicate on the spot, and lets the scan field have the code once complete', () => {
    const r = reports()
    show(<SerialNumbersInput id="sn" quantity={2} onReport={r.onReport} />)
    expect(screen.getByTestId('serial-progress').textContent).toBe('0 of 2')
    expect(r.last().problem?.key).toBe('tracking.serialsMissing')

    act(() => void expect(routeScan('SN-1')).toBe(true))
    expect(screen.getByTestId('serial-progress').textContent).toBe('1 of 2')

    act(() => void expect(routeScan('sn-1')).toBe(true))
    expect(screen.getByRole('alert').textContent).toBe('Serial number sn-1 is in the list already.')
    expect(screen.getByTestId('serial-progress').textContent).toBe('1 of 2')

    act(() => void routeScan('SN-2'))
    expect(screen.getByTestId('serial-progress').textContent).toBe('2 of 2')
    expect(r.last()).toEqual({ numbers: { SerialNumbers: [{ SerialNumber: 'SN-1' }, { SerialNumber: 'SN-2' }] }, problem: null })
    // complete: the next scan is the screen's again (another item, a location)
    expect(routeScan('PART-001')).toBe(false)

    fireEvent.click(screen.getByRole('button', { name: 'Remove serial number SN-1' }))
    expect(r.last().problem?.key).toBe('tracking.serialsMissing')
    act(() => void expect(routeScan('SN-3')).toBe(true))
    expect(r.last().numbers.SerialNumbers?.map((s) => s.SerialNumber)).toEqual(['SN-2', 'SN-3'])
  })

  it('takes a typed number with Enter without sending the form around it', () => {
    const submit = vi.fn((e: { preventDefault: () => void }) => e.preventDefault())
    const r = reports()
    render(
      <form onSubmit={submit}>
        <SerialNumbersInput id="sn" quantity={1} onReport={r.onReport} />
      </form>,
    )
    const input = screen.getByLabelText('Serial number')
    fireEvent.change(input, { target: { value: 'SN-9' } })
    fireEvent.keyDown(input, { key: 'Enter' })
    expect(submit).not.toHaveBeenCalled()
    expect(r.last().problem).toBeNull()
  })

  it('flags a number the stock here does not list, without refusing it', () => {
    const r = reports()
    show(<SerialNumbersInput id="sn" quantity={1} onReport={r.onReport} inStock={['SN-1']} />)
    act(() => void routeScan('SN-7'))
    expect(screen.getByTestId('serial-note').textContent).toContain('not in stock here')
    expect(r.last().problem).toBeNull()
  })
})

describe('BatchPicker', () => {
  const stock = [batch('B-1', 2, '2026-12-01'), batch('B-2', 5, '2027-02-01'), batch('B-3', 4, null)]

  it('lists the batches at the place, first-expiring first, prefilled up to the quantity', async () => {
    const fetchMock = vi.fn(async (_url: string) => json(answer(stock)))
    vi.stubGlobal('fetch', fetchMock)
    const r = reports()
    show(<BatchPicker id="bp" mode="take" place={{ item: 'item-1', warehouse: 'w1', location: 'l1' }} quantity={3} onReport={r.onReport} />)
    await screen.findByTestId('batch-list')
    expect(String(fetchMock.mock.calls[0][0])).toBe('/api/v1/tracking/numbers?item=item-1&warehouse=w1&location=l1')
    const taken = ['B-1', 'B-2', 'B-3'].map((n) => (screen.getByLabelText(`Quantity from batch ${n}`) as HTMLInputElement).value)
    expect(taken).toEqual(['2', '1', '0'])
    expect(r.last()).toEqual({
      numbers: {
        BatchNumbers: [
          { BatchNumber: 'B-1', Quantity: 2 },
          { BatchNumber: 'B-2', Quantity: 1 },
        ],
      },
      problem: null,
    })

    // picked from the list: taken from first
    fireEvent.click(screen.getByRole('button', { name: 'Take from B-3 first' }))
    expect(r.last().numbers.BatchNumbers).toEqual([{ BatchNumber: 'B-3', Quantity: 3 }])
    // scanned: the same
    act(() => void expect(routeScan('b-2')).toBe(true))
    expect(r.last().numbers.BatchNumbers).toEqual([{ BatchNumber: 'B-2', Quantity: 3 }])
    // a code that is no batch here is the screen's
    expect(routeScan('PART-001')).toBe(false)

    // the operator's own figure: the sum no longer fits
    fireEvent.change(screen.getByLabelText('Quantity from batch B-2'), { target: { value: '1' } })
    expect(r.last().problem).toEqual({ key: 'tracking.batchSum', values: { sum: 1, quantity: 3 } })
  })

  it('lists the batches last seen there while the server is out of reach, else asks to type them', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json(answer(stock))),
    )
    const place = { item: 'item-1', warehouse: 'w1', location: 'l1' }
    const first = show(<BatchPicker id="bp" mode="take" place={place} quantity={1} onReport={() => {}} />)
    await screen.findByTestId('batch-list')
    first.unmount()

    vi.stubGlobal(
      'fetch',
      vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))),
    )
    show(<BatchPicker id="bp" mode="take" place={place} quantity={1} onReport={() => {}} />)
    await screen.findByText(/as this device last saw them/)
    expect(screen.getAllByTestId('batch-row')).toHaveLength(3)
    cleanup()

    const r = reports()
    show(<BatchPicker id="bp" mode="take" place={{ ...place, location: 'other' }} quantity={2} onReport={r.onReport} />)
    await screen.findByText(/cannot be read now/)
    fireEvent.change(screen.getByLabelText('Batch number, line 1'), { target: { value: 'B-TYPED' } })
    // one typed batch with no quantity of its own is the whole booking
    await waitFor(() => expect(r.last()).toEqual({ numbers: { BatchNumbers: [{ BatchNumber: 'B-TYPED', Quantity: 2 }] }, problem: null }))
  })

  it('takes typed or scanned batches with their quantities for a receipt', () => {
    const r = reports()
    show(<BatchPicker id="bp" mode="receive" place={null} quantity={5} onReport={r.onReport} />)
    expect(r.last().problem?.key).toBe('tracking.batchNoNumber')
    act(() => void expect(routeScan('LOT-A')).toBe(true))
    expect(r.last()).toEqual({ numbers: { BatchNumbers: [{ BatchNumber: 'LOT-A', Quantity: 5 }] }, problem: null })
    // complete: the scan field has its codes back
    expect(routeScan('PART-001')).toBe(false)

    fireEvent.change(screen.getByLabelText('Quantity, line 1'), { target: { value: '3' } })
    expect(r.last().problem).toEqual({ key: 'tracking.batchSum', values: { sum: 3, quantity: 5 } })
    act(() => void routeScan('LOT-B'))
    expect(r.last()).toEqual({
      numbers: {
        BatchNumbers: [
          { BatchNumber: 'LOT-A', Quantity: 3 },
          { BatchNumber: 'LOT-B', Quantity: 2 },
        ],
      },
      problem: null,
    })
    // a received batch may be given its expiry date
    fireEvent.change(screen.getByLabelText('Expiry date, line 2'), { target: { value: '2027-06-30' } })
    expect(r.last().numbers.BatchNumbers?.[1]).toEqual({ BatchNumber: 'LOT-B', Quantity: 2, EndDate: '2027-06-30' })
  })
})
