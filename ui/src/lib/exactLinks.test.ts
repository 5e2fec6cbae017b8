import { describe, expect, it } from 'vitest'
import { exactHost, exactUrl } from './exactLinks.ts'

const ID = '4792a639-3840-4d8a-b086-017acd738a52'

describe('exactUrl', () => {
  it('builds the portal address by division', () => {
    expect(exactUrl('portal', 3154102)).toBe('https://start.exactonline.nl/docs/MenuPortal.aspx?_Division_=3154102')
  })

  it('puts the record id in braces before the division', () => {
    const url = new URL(exactUrl('itemCard', 7, ID))
    expect(url.searchParams.get('ItemID')).toBe(`{${ID}}`)
    expect(url.searchParams.get('_Division_')).toBe('7')
    expect(new URL(exactUrl('shopOrder', 7, `{${ID}}`)).searchParams.get('ID')).toBe(`{${ID}}`)
  })

  it('has a page for each kind of record', () => {
    const pages = ['inventoryTransactions', 'purchaseOrder', 'itemVersion', 'salesOrder', 'project', 'purchaseInvoice'] as const
    const urls = pages.map((p) => exactUrl(p, 1, ID))
    expect(new Set(urls).size).toBe(pages.length)
    for (const u of urls) expect(u).toContain(encodeURIComponent(ID))
  })
})

describe('exactHost', () => {
  it("uses the server's configured country host, else the Dutch one", () => {
    expect(exactHost({ exactHost: 'https://start.exactonline.be/' })).toBe('https://start.exactonline.be')
    expect(exactUrl('portal', 5, undefined, exactHost({ exactHost: 'https://start.exactonline.de' }))).toBe(
      'https://start.exactonline.de/docs/MenuPortal.aspx?_Division_=5',
    )
    expect(exactHost(undefined)).toBe('https://start.exactonline.nl')
    expect(exactHost({ exactHost: '' })).toBe('https://start.exactonline.nl')
  })
})
