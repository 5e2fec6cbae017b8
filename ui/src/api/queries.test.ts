import { QueryClient } from '@tanstack/react-query'
import { describe, expect, it } from 'vitest'
import {
  countKeys,
  hoursKeys,
  liveKeys,
  materialKeys,
  outboxKeys,
  planningKeys,
  purchaseKeys,
  receiptKeys,
  scanKeys,
  stockTableKeys,
  transferKeys,
} from './queries.ts'

const startsWith = (key: readonly unknown[], prefix: readonly unknown[]) => prefix.every((part, i) => Object.is(key[i], part))

/** Each factory's `all`, and every key it builds for the two organizations given. */
const families = (a: number, b: number) => [
  { all: liveKeys.all, keys: [liveKeys.list('warehouses', a), liveKeys.list('warehouses', b)] },
  { all: liveKeys.named('itemGroups'), keys: [liveKeys.list('itemGroups', a), liveKeys.list('itemGroups', b)] },
  { all: stockTableKeys.all, keys: [stockTableKeys.table(a, { search: 'x' }), stockTableKeys.table(b, { search: 'x' })] },
  {
    all: planningKeys.all,
    keys: [planningKeys.list('orders', a), planningKeys.list('orders', b), planningKeys.itemGroup(a, 'g'), planningKeys.itemGroup(b, 'g')],
  },
  { all: hoursKeys.weeks, keys: [hoursKeys.week(a, '2026-11-23'), hoursKeys.week(b, '2026-11-23')] },
  { all: hoursKeys.all, keys: [hoursKeys.names(a, '2026-11-23', 3), hoursKeys.names(b, '2026-11-23', 3), hoursKeys.timers(a), hoursKeys.timers(b)] },
  { all: receiptKeys.all, keys: [receiptKeys.list(a), receiptKeys.list(b), receiptKeys.openLines(a), receiptKeys.openLines(b)] },
  { all: transferKeys.all, keys: [transferKeys.recent(a), transferKeys.recent(b)] },
  { all: materialKeys.all, keys: [materialKeys.shortages(a, {}), materialKeys.shortages(b, {}), materialKeys.projects(a), materialKeys.projects(b)] },
  { all: purchaseKeys.all, keys: [purchaseKeys.open(a), purchaseKeys.open(b)] },
  { all: outboxKeys.all, keys: [outboxKeys.list(a), outboxKeys.list(b)] },
]

describe('query-key factories', () => {
  it('build equal keys from equal inputs', () => {
    expect(families(1, 2)).toEqual(families(1, 2))
    expect(scanKeys.stock('i')).toEqual(scanKeys.stock('i'))
    expect(outboxKeys.entries([1, 2])).toEqual(outboxKeys.entries([1, 2]))
  })

  it('give two organizations two keys for the same data', () => {
    for (const { keys } of families(1, 2)) {
      for (let i = 0; i < keys.length; i += 2) expect(keys[i]).not.toEqual(keys[i + 1])
    }
  })

  it('start every key with the prefix its invalidation uses', () => {
    for (const { all, keys } of families(1, 2)) for (const key of keys) expect(startsWith(key, all), JSON.stringify(key)).toBe(true)
    const byId = [
      [scanKeys.all, scanKeys.stock('i'), scanKeys.warehouseStock('i'), scanKeys.ordersMaking('i'), scanKeys.ordersNeeding('i'), scanKeys.byProducts('o')],
      [countKeys.all, countKeys.recent('i')],
      [planningKeys.all, planningKeys.plans('o'), planningKeys.steps('o'), planningKeys.salesLines('o')],
      [hoursKeys.all, hoursKeys.steps('o')],
      [receiptKeys.all, receiptKeys.needs(['i'])],
      [transferKeys.fromAll, transferKeys.from('i')],
      [transferKeys.all, transferKeys.fromAll],
      [outboxKeys.all, outboxKeys.entries([1]), outboxKeys.entry(1)],
    ] as const
    for (const [all, ...keys] of byId) for (const key of keys) expect(startsWith(key, all), JSON.stringify(key)).toBe(true)
  })

  it("an invalidation by prefix reaches every organization's key and nothing else", async () => {
    const client = new QueryClient()
    client.setQueryData(liveKeys.list('warehouses', 1), [])
    client.setQueryData(liveKeys.list('warehouses', 2), [])
    client.setQueryData(liveKeys.list('itemGroups', 1), [])
    client.setQueryData(stockTableKeys.table(1, {}), [])
    await client.invalidateQueries({ queryKey: liveKeys.named('warehouses') })
    const invalidated = (key: readonly unknown[]) => client.getQueryState(key)?.isInvalidated
    expect(invalidated(liveKeys.list('warehouses', 1))).toBe(true)
    expect(invalidated(liveKeys.list('warehouses', 2))).toBe(true)
    expect(invalidated(liveKeys.list('itemGroups', 1))).toBe(false)
    await client.invalidateQueries({ queryKey: stockTableKeys.all })
    expect(invalidated(stockTableKeys.table(1, {}))).toBe(true)
  })
})
