import { describe, expect, it } from 'vitest'
import { parseQuantity } from './quantity.ts'
import { addSerial, batchReport, pickFirst, prefillBatches, serialReport, trackingOf, trackingOfAny, type StockBatch } from './tracking.ts'

const batch = (number: string, quantity: number, expiry: string | null = null): StockBatch => ({
  number,
  quantity,
  expiry,
  warehouse: 'w1',
  warehouse_code: '1',
  location: 'l1',
  location_code: 'A-01',
})

describe('trackingOf', () => {
  it('reads Items Booleans and material plan Bytes alike', () => {
    expect(trackingOf({ IsSerialItem: true, IsBatchItem: 0 })).toBe('serial')
    expect(trackingOf({ IsSerialItem: false, IsBatchItem: 1 })).toBe('batch')
    expect(trackingOf({ IsSerial: 1, IsBatch: 0 })).toBe('serial')
    expect(trackingOf({ IsSerial: 0, IsBatch: '1' })).toBe('batch')
    expect(trackingOf({ IsSerialItem: 0, IsBatchItem: false })).toBe('none')
    expect(trackingOf(null)).toBe('none')
  })
  it("takes the plan line's tracking, else the item's", () => {
    expect(trackingOfAny({ IsSerial: 0, IsBatch: 0 }, { IsBatchItem: true })).toBe('batch')
    expect(trackingOfAny(undefined, { IsSerialItem: 1 })).toBe('serial')
  })
})

describe('serial numbers', () => {
  it('refuses a number already in the list, whatever its case, on the spot', () => {
    const first = addSerial([], 'SN-1', 3)
    expect(first).toEqual({ list: ['SN-1'], refused: null })
    const again = addSerial(first.list, ' sn-1 ', 3)
    expect(again.refused).toBe('tracking.serialDuplicate')
    expect(again.list).toEqual(['SN-1'])
  })
  it('refuses an empty scan and one more than the quantity', () => {
    expect(addSerial(['A'], '  ', 2).refused).toBe('tracking.serialEmpty')
    expect(addSerial(['A', 'B'], 'C', 2).refused).toBe('tracking.serialsFull')
  })
  it('is complete at one number per unit, and says what is missing before', () => {
    expect(serialReport(['A'], 3).problem).toEqual({ key: 'tracking.serialsMissing', values: { count: 2 } })
    expect(serialReport(['A', 'B', 'C'], 3)).toEqual({
      numbers: { SerialNumbers: [{ SerialNumber: 'A' }, { SerialNumber: 'B' }, { SerialNumber: 'C' }] },
      problem: null,
    })
    // the quantity went down after the numbers were scanned
    expect(serialReport(['A', 'B', 'C'], 2).problem).toEqual({ key: 'tracking.serialsTooMany', values: { count: 1 } })
    expect(serialReport([], 2.5).problem?.key).toBe('tracking.serialWholeQuantity')
    expect(serialReport([], null).problem?.key).toBe('tracking.needsQuantity')
  })
})

describe('batches', () => {
  const stock = [batch('B-EARLY', 2, '2026-12-01'), batch('B-LATE', 5, '2027-03-01'), batch('B-NONE', 10)]

  it('prefills in the order given (first-expiring first) up to the quantity', () => {
    expect(prefillBatches(stock, 4)).toEqual([2, 2, 0])
    expect(prefillBatches(stock, 1.5)).toEqual([1.5, 0, 0])
    expect(prefillBatches(stock, 20)).toEqual([2, 5, 10])
    expect(prefillBatches(stock, null)).toEqual([0, 0, 0])
    expect(prefillBatches([batch('X', 0.1), batch('Y', 0.2)], 0.3)).toEqual([0.1, 0.2])
  })
  it('takes from a picked batch first', () => {
    const picked = pickFirst(stock, 'b-late')
    expect(picked.map((b) => b.number)).toEqual(['B-LATE', 'B-EARLY', 'B-NONE'])
    expect(prefillBatches(picked, 4)).toEqual([4, 0, 0])
  })
  it('is complete when the batches add up to the quantity, in Exact’s shape', () => {
    const lines = [
      { number: 'B-EARLY', quantity: '2' },
      { number: 'B-LATE', quantity: '2,5' },
      { number: 'B-NONE', quantity: '0' },
    ]
    expect(batchReport(lines, 4.5, parseQuantity)).toEqual({
      numbers: {
        BatchNumbers: [
          { BatchNumber: 'B-EARLY', Quantity: 2 },
          { BatchNumber: 'B-LATE', Quantity: 2.5 },
        ],
      },
      problem: null,
    })
    expect(batchReport(lines, 5, parseQuantity).problem).toEqual({ key: 'tracking.batchSum', values: { sum: 4.5, quantity: 5 } })
  })
  it('says what keeps typed batches from booking', () => {
    expect(batchReport([{ number: '', quantity: '3' }], 3, parseQuantity).problem?.key).toBe('tracking.batchNoNumber')
    expect(batchReport([{ number: 'B', quantity: 'x' }], 3, parseQuantity).problem?.key).toBe('tracking.batchBadQuantity')
    expect(
      batchReport(
        [
          { number: 'B', quantity: '1' },
          { number: 'b', quantity: '2' },
        ],
        3,
        parseQuantity,
      ).problem,
    ).toEqual({ key: 'tracking.batchTwice', values: { number: 'b' } })
    expect(batchReport([{ number: 'B', quantity: '3' }], null, parseQuantity).problem?.key).toBe('tracking.needsQuantity')
    // a received batch carries its expiry date when one is given
    expect(batchReport([{ number: 'B', quantity: '3', expiry: '2027-06-30' }], 3, parseQuantity).numbers).toEqual({
      BatchNumbers: [{ BatchNumber: 'B', Quantity: 3, EndDate: '2027-06-30' }],
    })
    // an empty line is no line
    expect(
      batchReport(
        [
          { number: 'B', quantity: '3' },
          { number: '', quantity: '' },
        ],
        3,
        parseQuantity,
      ).problem,
    ).toBeNull()
  })
})
