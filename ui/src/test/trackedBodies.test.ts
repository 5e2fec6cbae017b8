// The numbers travel in every booking's body, in Exact Online's shape: sent, and kept on the
// handheld in a Wi-Fi dead spot and sent later (nothing on the way strips them).
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { json } from './fixtures.ts'
import { memoryStore } from '../offline/idb.ts'
import { reloadBookings, sendWaiting, setBookingOwner, setBookingStore, type Booking } from '../offline/queue.ts'
import { countStock, issueMaterial, receiveShopOrder, transferStock } from '../api/scan.ts'
import { receiptBodies, type OpenLine } from '../lib/receipts.ts'
import { transferBody } from '../features/transfers/logic.ts'

const SERIALS = { SerialNumbers: [{ SerialNumber: 'SN-1' }, { SerialNumber: 'SN-2' }] }
const BATCHES = {
  BatchNumbers: [
    { BatchNumber: 'B-1', Quantity: 1.5 },
    { BatchNumber: 'B-2', Quantity: 0.5 },
  ],
}
const OWNER = { division: 7, user: 'anna' }

beforeEach(() => {
  setBookingStore(memoryStore<Booking>((b) => b.key))
  setBookingOwner(OWNER)
})

afterEach(() => vi.unstubAllGlobals())

describe('bookings of tracked items', () => {
  it('carry the numbers on the issue, the receipt, the transfer line and the count line', async () => {
    const bodies: unknown[] = []
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_url: string, init?: RequestInit) => {
        bodies.push(JSON.parse(String(init?.body)))
        return json({ state: 'delivered', error: null, entries: [] })
      }),
    )
    await issueMaterial({ plan: 'p1', quantity: 2, numbers: BATCHES, summary: 'issue' })
    await receiveShopOrder({ shopOrder: 's1', quantity: 2, numbers: SERIALS, summary: 'receipt' })
    await transferStock({ item: 'i1', quantity: 2, warehouseFrom: 'w1', warehouseTo: 'w2', numbers: SERIALS, summary: 'transfer' })
    await countStock({ item: 'i1', warehouse: 'w1', quantity: 2, numbers: BATCHES, summary: 'count' })
    expect(bodies[0]).toMatchObject({ ShopOrderMaterialPlan: 'p1', Quantity: 2, ...BATCHES })
    expect(bodies[1]).toMatchObject({ ShopOrder: 's1', Quantity: 2, ...SERIALS })
    expect(bodies[2]).toMatchObject({ WarehouseTransferLines: [{ Item: 'i1', Quantity: 2, ...SERIALS }] })
    expect(bodies[3]).toMatchObject({ StockCountLines: [{ Item: 'i1', QuantityNew: 2, ...BATCHES }] })
    // an untracked item's body has no empty lists
    await issueMaterial({ plan: 'p1', quantity: 2, summary: 'issue' })
    expect(Object.keys(bodies[4] as object)).not.toContain('SerialNumbers')
  })

  it('keep their numbers while kept on the handheld, and send them later', async () => {
    vi.stubGlobal('navigator', { onLine: false })
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        throw new TypeError('Failed to fetch')
      }),
    )
    const res = await issueMaterial({ plan: 'p1', quantity: 2, numbers: BATCHES, summary: 'issue' })
    expect(res.state).toBe('kept')
    const [kept] = await reloadBookings()
    expect(kept.body).toMatchObject(BATCHES)

    const sent: unknown[] = []
    await sendWaiting(OWNER, async (b) => {
      sent.push(b.body)
      return { state: 'delivered', error: null, entries: [] }
    })
    expect(sent).toEqual([expect.objectContaining(BATCHES)])
  })

  it('put the numbers on each goods receipt line and transfer line of the desktop screens', () => {
    const line = { id: 'l1', orderId: 'o1', orderNumber: '12' } as OpenLine
    const [receipt] = receiptBodies([{ line, quantity: 2, location: '', numbers: SERIALS }])
    expect(receipt.body.GoodsReceiptLines).toEqual([{ PurchaseOrderLineID: 'l1', QuantityReceived: 2, ...SERIALS }])
    const place = (id: string) => ({ location: id, locationCode: id, warehouse: 'w1', warehouseCode: '1' })
    const transfer = transferBody('i1', place('a'), place('b'), 2, 'move', BATCHES)
    expect(transfer.WarehouseTransferLines).toEqual([{ Item: 'i1', Quantity: 2, StorageLocationFrom: 'a', StorageLocationTo: 'b', ...BATCHES }])
  })
})
