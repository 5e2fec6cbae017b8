import { afterEach, describe, expect, it, vi } from 'vitest'
import { combineStock, fetchStockPage, NO_FILTERS, orderOf, searchTerms } from './stock.ts'

const W1 = 'AAAAAAAA-0000-0000-0000-000000000001'
const W3 = 'AAAAAAAA-0000-0000-0000-000000000003'
const ITEM = 'bbbbbbbb-0000-0000-0000-000000000001'

describe('combineStock', () => {
  it('keeps each warehouse stock beside the total', () => {
    const sp = [
      { ItemId: ITEM, CurrentStock: 89, Warehouse: W1, WarehouseCode: '1' },
      { ItemId: ITEM, CurrentStock: 114, Warehouse: W3, WarehouseCode: '3' },
    ]
    const s = combineStock([], sp).get(ITEM)
    expect(s?.total).toBe(203)
    expect(s?.byWarehouse.get(W3.toLowerCase())).toBe(114)
    expect(s?.byWarehouse.get(W1.toLowerCase())).toBe(89)
  })

  it('counts storage locations per warehouse only for an item without warehouse positions', () => {
    const slsp = [
      { Item: ITEM, Stock: 10, Warehouse: W3, WarehouseCode: '3', StorageLocationCode: 'C01' },
      { Item: ITEM, Stock: 4, Warehouse: W3, WarehouseCode: '3', StorageLocationCode: 'C02' },
    ]
    expect(combineStock(slsp, []).get(ITEM)?.byWarehouse.get(W3.toLowerCase())).toBe(14)
    // the warehouse positions hold the storage locations' stock too
    const withSp = combineStock(slsp, [{ ItemId: ITEM, CurrentStock: 20, Warehouse: W3, WarehouseCode: '3' }]).get(ITEM)
    expect(withSp?.total).toBe(20)
    expect(withSp?.byWarehouse.get(W3.toLowerCase())).toBe(20)
  })
})

/** Answers the local copy's reads from `tables` and records each URL asked. */
function fakeDb(tables: (path: string, params: URLSearchParams) => unknown[]) {
  const asked: URL[] = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL) => {
      const url = new URL(String(input), 'http://localhost')
      asked.push(url)
      return new Response(JSON.stringify(tables(url.pathname, url.searchParams)), { status: 200, headers: { 'Content-Type': 'application/json' } })
    }),
  )
  return asked
}

afterEach(() => vi.unstubAllGlobals())

const itemRow = { ID: ITEM, Code: '44-100434', Description: 'Motor', ItemGroupCode: 'G', Unit: 'pc' }

describe('fetchStockPage', () => {
  it("shows the chosen warehouse's stock with the item's total", async () => {
    fakeDb((path) => {
      if (path.endsWith('/db/joins'))
        return [{ ItemId: ITEM, CurrentStock: 114, Warehouse: W3, ...Object.fromEntries(Object.entries(itemRow).map(([k, v]) => [`items.${k}`, v])) }]
      if (path.endsWith('/db/stockPositions'))
        return [
          { ItemId: ITEM, CurrentStock: 89, Warehouse: W1, WarehouseCode: '1' },
          { ItemId: ITEM, CurrentStock: 114, Warehouse: W3, WarehouseCode: '3' },
        ]
      return []
    })
    const page = await fetchStockPage({ ...NO_FILTERS, activity: 'all', warehouse: W3 }, 0)
    expect(page.items.map((i) => [i.code, i.warehouseStock, i.total])).toEqual([['44-100434', 114, 203]])
  })

  it('gives no warehouse stock when all warehouses are shown', async () => {
    fakeDb((path) => (path.endsWith('/db/items') ? [itemRow] : path.endsWith('/db/stockPositions') ? [{ ItemId: ITEM, CurrentStock: 5, Warehouse: W1 }] : []))
    const page = await fetchStockPage(NO_FILTERS, 0)
    expect(page.items.map((i) => [i.warehouseStock, i.total])).toEqual([[null, 5]])
  })

  it('finds the item of a shop order searched as "SO 24005"', async () => {
    const asked = fakeDb((path, q) => {
      if (path.endsWith('/db/shopOrders')) return q.get('ShopOrderNumber') === 'eq.24005' ? [{ Item: ITEM }] : []
      if (path.endsWith('/db/items') && q.get('or')?.includes(ITEM)) return [itemRow]
      return []
    })
    const page = await fetchStockPage({ ...NO_FILTERS, search: 'SO 24005' }, 0)
    expect(page.items.map((i) => [i.code, i.shopOrder])).toEqual([['44-100434', 24005]])
    expect(asked.some((u) => u.pathname.endsWith('/db/shopOrders'))).toBe(true)
  })

  it('finds an item by its barcode in any of its GTIN forms, and asks no shop order for one', async () => {
    const asked = fakeDb((path, q) => {
      if (path.endsWith('/db/items') && q.get('Barcode') === 'in.(8715166523257,08715166523257)') return [{ ID: ITEM }]
      if (path.endsWith('/db/items') && q.get('or')?.includes(ITEM)) return [itemRow]
      return []
    })
    const page = await fetchStockPage({ ...NO_FILTERS, search: '8715166523257' }, 0)
    expect(page.items.map((i) => [i.code, i.shopOrder])).toEqual([['44-100434', null]])
    expect(asked.some((u) => u.pathname.endsWith('/db/shopOrders'))).toBe(false)
  })
})

describe('searchTerms', () => {
  it('matches the whole text, or every word in code or description in any order', () => {
    expect(searchTerms('kast besturing', [], 'Code', 'Description', 'ID')).toBe(
      '(Code.ilike.*kast besturing*,Description.ilike.*kast besturing*,and(or(Code.ilike.*kast*,Description.ilike.*kast*),or(Code.ilike.*besturing*,Description.ilike.*besturing*)))',
    )
  })
  it('keeps one word as one term, skips words a filter cannot take, and adds the items the text names', () => {
    expect(searchTerms('moer', ['i1'], 'ItemCode', 'ItemDescription', 'ItemId')).toBe('(ItemCode.ilike.*moer*,ItemDescription.ilike.*moer*,ItemId.in.(i1))')
    expect(searchTerms('moer ,', [], 'Code', 'Description', 'ID')).toBe('(Code.ilike.*moer*,Description.ilike.*moer*)')
  })
})

describe('orderOf', () => {
  it('orders by code or description either way, the code breaking ties', () => {
    expect(orderOf('code')).toBe('Code.asc')
    expect(orderOf('-code', 'Item')).toBe('ItemCode.desc')
    expect(orderOf('description')).toBe('Description.asc,Code.asc')
    expect(orderOf('-description', 'Item')).toBe('ItemDescription.desc,ItemCode.asc')
  })
})
