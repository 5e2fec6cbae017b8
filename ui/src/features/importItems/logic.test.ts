import { describe, expect, it } from 'vitest'
import { autoMap, mappingErrors, parseBool, parseNumber, planRows } from './logic.ts'

const GROUP = '3739092e-5243-4a17-bc80-90ebca7cf321'
const EXISTING = 'dd6cc85e-3407-4270-a522-7a29bda49639'

describe('autoMap', () => {
  it('recognises English and Dutch headers', () => {
    const m = autoMap(['Artikelcode', 'Omschrijving', 'Artikelgroep', 'Voorraadartikel', 'Kostprijs', 'Other'])
    expect(m).toMatchObject({ Code: 0, Description: 1, ItemGroup: 2, IsStockItem: 3, CostPriceStandard: 4, Unit: null })
    expect(mappingErrors(m)).toEqual([])
    expect(mappingErrors(autoMap(['x']))).toEqual(['Choose a column for Item code'])
  })
})

describe('values', () => {
  it('reads yes/no in both languages', () => {
    expect(['yes', 'Ja', '1', 'TRUE', 'x'].map(parseBool)).toEqual([true, true, true, true, true])
    expect(['no', 'Nee', '0', 'FALSE'].map(parseBool)).toEqual([false, false, false, false])
    expect(parseBool('maybe')).toBeNull()
  })

  it('reads Dutch and English decimals', () => {
    expect(['12,5', '12.5', '1.234,56', '1,234.56', ' 7 '].map(parseNumber)).toEqual([12.5, 12.5, 1234.56, 1234.56, 7])
    expect(parseNumber('abc')).toBeNull()
  })
})

describe('planRows', () => {
  const header = ['Code', 'Description', 'Item group', 'Stock item', 'Cost price']
  const mapping = autoMap(header)
  const existing = new Map([['44-100434', EXISTING]])
  const groups = new Map([['drw', GROUP]])

  it('creates new codes, updates known ones and sends only filled cells on update', () => {
    const plan = planRows([header, ['NEW-1', 'Bracket', 'DRW', 'ja', '12,50'], ['44-100434', '', '', 'no', '']], mapping, existing, groups)
    expect(plan[0]).toMatchObject({
      row: 2,
      action: 'create',
      data: { Code: 'NEW-1', Description: 'Bracket', ItemGroup: GROUP, IsStockItem: true, CostPriceStandard: 12.5 },
    })
    expect(plan[1]).toMatchObject({ row: 3, action: 'update', id: EXISTING, data: { Code: '44-100434', IsStockItem: false } })
    expect(plan[1].data).not.toHaveProperty('Description')
  })

  it('gives row-level errors', () => {
    const plan = planRows(
      [
        header,
        ['', 'No code', '', '', ''],
        ['A', '', 'NOPE', 'perhaps', 'ten'],
        ['B', 'ok', '', '', ''],
        ['b', 'again', '', '', ''],
        ['C'.repeat(31), 'long', '', '', ''],
      ],
      mapping,
      existing,
      groups,
    )
    expect(plan.map((p) => p.action)).toEqual(['error', 'error', 'create', 'error', 'error'])
    expect(plan[0].errors).toEqual(['Item code is empty'])
    expect(plan[1].errors).toEqual([
      'Description is empty',
      'Item group "NOPE" does not exist',
      'Stock item: "perhaps" is not yes or no',
      'Standard cost price: "ten" is not a number',
    ])
    expect(plan[3].errors).toEqual(['Code b appears more than once (also row 4)'])
    expect(plan[4].errors).toEqual(['Item code is longer than 30 characters'])
  })
})
