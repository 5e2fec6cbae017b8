import { describe, expect, it } from 'vitest'
import type { Printer } from '../api/org.ts'
import { setLanguage } from '../i18n/index.ts'
import { printer } from '../test/fixtures.ts'
import { readSettings } from './orgSettings.ts'
import { canonicalType, chosenPrinter, LABEL_TYPES, labelCopies, labelTypeFor, labelTypeName, planCopies, printersFor, printerTakes } from './labels.ts'

const settings = readSettings({
  label_type_shop_order: 'cnc-new',
  label_type_item: 'electrical-x4',
  label_type_receipt: 'receipts',
  default_printer: 'Floor',
  label_copies: 3,
})

const PRINTERS: Printer[] = [
  printer({ name: 'Desk' }),
  printer({ name: 'Floor', label_types: ['cnc-new', 'electrical-X4'] }),
  printer({ name: 'Receipts desk', label_types: ['7'] }),
  printer({ name: 'Found on the LAN', accepted: false, source: 'discovered', state: 'discovered' }),
]

describe('label type per source', () => {
  it('takes the type Global Settings choose for each source', () => {
    expect(labelTypeFor(settings, 'shop_order')).toBe('cnc-new')
    expect(labelTypeFor(settings, 'item_direct')).toBe('electrical-x4')
    expect(labelTypeFor(settings, 'goods_receipt')).toBe('receipts')
  })

  it('falls back to the spec defaults when nothing is saved', () => {
    const none = readSettings({})
    expect(labelTypeFor(none, 'shop_order')).toBe('electrical-72001926')
    expect(labelTypeFor(none, 'item_direct')).toBe('electrical-72001926')
    expect(labelTypeFor(none, 'goods_receipt')).toBe('receipts')
  })
})

describe('label type names', () => {
  it('names every type with its label and size, in English and Dutch, never as a bare number', () => {
    expect(LABEL_TYPES.map(labelTypeName)).toEqual([
      'Electrical 72001926 (45 × 30 mm, 2 per sheet)',
      'Electrical 72001925 (45 × 20 mm, 4 per sheet)',
      'Electrical x4 (45 × 20 mm, 4 per sheet)',
      'Electrical sticker NEW (70 × 50 mm)',
      'CNC (100 × 23 mm)',
      'Goods receipt (76.2 × 44.45 mm)',
    ])
    try {
      setLanguage('nl', false)
      expect(labelTypeName('receipts')).toBe('Goederenontvangst (76,2 × 44,45 mm)')
      expect(labelTypeName('electrical-72001926')).toBe('Elektra 72001926 (45 × 30 mm, 2 per vel)')
    } finally {
      setLanguage('en', false)
    }
  })

  it('names a type saved by number or in another case as the server reads it', () => {
    expect(labelTypeName('7')).toBe('Goods receipt (76.2 × 44.45 mm)')
    expect(labelTypeName('ELECTRICAL-new')).toBe('Electrical sticker NEW (70 × 50 mm)')
    expect(labelTypeName(' 6 ')).toBe('CNC (100 × 23 mm)')
  })

  it('lists a type saved by number or in another case under its own name', () => {
    expect(canonicalType('7')).toBe('receipts')
    expect(canonicalType('Electrical-new')).toBe('electrical-NEW')
    expect(canonicalType('pallet-a5')).toBe('pallet-a5')
  })

  it('shows a type this version does not know as it is, with what it prints as', () => {
    expect(labelTypeName('pallet-a5')).toBe('pallet-a5 (not known here: printed as Electrical 72001926 (45 × 30 mm, 2 per sheet))')
  })
})

describe('printers for a label type', () => {
  it('judges a printer by name (any case) or number, as the server does; no list takes any type', () => {
    expect(printerTakes(PRINTERS[0], 'receipts')).toBe(true)
    expect(printerTakes(PRINTERS[1], 'electrical-x4')).toBe(true)
    expect(printerTakes(PRINTERS[1], '6')).toBe(true)
    expect(printerTakes(PRINTERS[1], 'receipts')).toBe(false)
    expect(printerTakes(PRINTERS[2], 'receipts')).toBe(true)
    expect(printerTakes(PRINTERS[2], 'unknown-type')).toBe(false)
  })

  it('offers only printers that take jobs and hold media for the type', () => {
    expect(printersFor(PRINTERS, 'cnc-new').map((p) => p.name)).toEqual(['Desk', 'Floor'])
    expect(printersFor(PRINTERS, 'receipts').map((p) => p.name)).toEqual(['Desk', 'Receipts desk'])
    expect(printersFor(undefined, 'receipts')).toEqual([])
  })

  it('preselects the default printer when it can print the type', () => {
    expect(chosenPrinter(null, settings, PRINTERS, 'cnc-new')).toBe('Floor')
    // Floor holds no receipt labels: nothing is preselected rather than a job it refuses
    expect(chosenPrinter(null, settings, PRINTERS, 'receipts')).toBe('')
    // not listed (yet, or any more)
    expect(chosenPrinter(null, settings, undefined, 'cnc-new')).toBe('')
    expect(chosenPrinter(null, readSettings({ default_printer: 'Gone' }), PRINTERS, 'cnc-new')).toBe('')
    expect(chosenPrinter(null, readSettings({}), PRINTERS, 'cnc-new')).toBe('')
  })

  it("keeps the user's pick over the default, also a pick of none", () => {
    expect(chosenPrinter('Desk', settings, PRINTERS, 'cnc-new')).toBe('Desk')
    expect(chosenPrinter('', settings, PRINTERS, 'cnc-new')).toBe('')
    expect(chosenPrinter('Receipts desk', settings, PRINTERS, 'cnc-new')).toBe('')
  })
})

describe('copies', () => {
  it('reads the copies as a whole number within the server limit', () => {
    expect(labelCopies(settings)).toBe(3)
    expect(labelCopies(readSettings({}))).toBe(1)
    expect(labelCopies(readSettings({ label_copies: 0 }))).toBe(1)
    expect(labelCopies(readSettings({ label_copies: 250 }))).toBe(100)
    expect(labelCopies(readSettings({ label_copies: Number.NaN }))).toBe(1)
  })

  it('puts the copies into item and receipt print counts, so the PDF holds them too', () => {
    expect(planCopies('item_direct', ['i1'], 3)).toEqual({ ids: [{ id: 'i1', print_count: 3 }], batchCopies: 1 })
    expect(planCopies('goods_receipt', [{ id: 'r1', print_count: 2 }, { id: 'r2' }], 2).ids).toEqual([
      { id: 'r1', print_count: 4 },
      { id: 'r2', print_count: 2 },
    ])
  })

  it("asks for a shop order's copies as copies of the batch (its counts are the server's)", () => {
    expect(planCopies('shop_order', ['s1'], 3)).toEqual({ ids: ['s1'], batchCopies: 3 })
  })

  it('leaves the ids as they are for one copy', () => {
    expect(planCopies('item_direct', ['i1'], 1)).toEqual({ ids: ['i1'], batchCopies: 1 })
  })
})
