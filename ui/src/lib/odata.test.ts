import { describe, expect, it } from 'vitest'
import { anyGuid, dayLit, directUrl, guidLit, isoDay } from './odata.ts'

const G = '4792a639-3840-4d8a-b086-017acd738a52'

describe('odata', () => {
  it('writes literals', () => {
    expect(guidLit(`{${G}}`)).toBe(`guid'${G}'`)
    expect(dayLit(new Date(2026, 0, 5, 15))).toBe("datetime'2026-01-05T00:00:00'")
    expect(isoDay(new Date(2026, 10, 21))).toBe('2026-11-21')
  })
  it('joins ids with or', () => {
    expect(anyGuid('ID', [G, G])).toBe(`(ID eq guid'${G}' or ID eq guid'${G}')`)
  })
  it('encodes the options once', () => {
    expect(directUrl('purchaseorder/GoodsReceipts', { filter: "ReceiptDate ge datetime'2026-01-01T00:00:00'", select: 'ID,ReceiptNumber' })).toBe(
      "purchaseorder/GoodsReceipts?$filter=ReceiptDate%20ge%20datetime'2026-01-01T00%3A00%3A00'&$select=ID%2CReceiptNumber",
    )
    expect(directUrl('x', {})).toBe('x')
  })
})
