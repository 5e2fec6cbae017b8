import { describe, expect, it } from 'vitest'
import type { Booking } from '../../offline/queue.ts'
import type { MaterialPlan } from '../../api/scan.ts'
import { ISSUE_PATH, keptIssues, suggestedIssue, toIssue } from './toIssue.ts'

const plan = (over: Partial<MaterialPlan> = {}): MaterialPlan => ({
  ID: 'AB-1',
  ShopOrder: 'so',
  Item: 'it',
  ItemCode: 'P-1',
  ItemDescription: null,
  PlannedQuantity: 7,
  IssuedQuantity: 6.5,
  Type: 1,
  Status: 25,
  ...over,
})

const kept = (body: unknown, over: Partial<Booking> = {}): Booking => ({
  key: 'k',
  seq: 1,
  division: 1,
  kind: 'issue',
  summary: '',
  path: ISSUE_PATH,
  method: 'POST',
  body,
  madeAt: 0,
  tries: 0,
  lastError: null,
  refused: null,
  ...over,
})

describe('what a material line still needs', () => {
  it('is the plan less what Exact issued, what the server queues and what this device keeps', () => {
    expect(toIssue(plan(), new Map())).toEqual({ open: 0.5, waiting: 0 })
    expect(toIssue(plan({ IssuedQuantity: 2, QueuedQuantity: 1 }), new Map([['ab-1', 1.5]]))).toEqual({ open: 2.5, waiting: 2.5 })
    // over-issued: nothing still to issue, never below 0
    expect(toIssue(plan({ IssuedQuantity: 9 }), new Map()).open).toBe(0)
    // a copy without issued quantities reads as nothing issued
    expect(toIssue(plan({ IssuedQuantity: undefined }), new Map()).open).toBe(7)
  })
  it('counts only this organization’s kept issues that were not refused', () => {
    const rows = [
      kept({ ShopOrderMaterialPlan: 'AB-1', Quantity: 2 }),
      kept({ ShopOrderMaterialPlan: 'ab-1', Quantity: 0.5 }),
      kept({ ShopOrderMaterialPlan: 'AB-1', Quantity: 4 }, { refused: 'no' }),
      kept({ ShopOrderMaterialPlan: 'AB-1', Quantity: 4 }, { division: 2 }),
      kept({ ShopOrder: 'AB-1', Quantity: 4 }, { path: '/exact/createShopOrderReceipt' }),
    ]
    expect(keptIssues(rows, 1)).toEqual(new Map([['ab-1', 2.5]]))
  })
  it('starts the form at what is still to issue, capped by the stock there', () => {
    expect(suggestedIssue(3, 10)).toBe(3)
    expect(suggestedIssue(3, 1.25)).toBe(1.25)
    expect(suggestedIssue(3, null)).toBe(3)
    expect(suggestedIssue(0, 10)).toBeNull()
    expect(suggestedIssue(3, 0)).toBeNull()
  })
})
