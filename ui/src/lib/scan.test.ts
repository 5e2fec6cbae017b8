import { describe, expect, it } from 'vitest'
import { barcodeForms, classifyCode, classifyScan, cleanScan, sameBarcode, scanGate, shopOrderNumberOf } from './scan.ts'

const locations = [
  { ID: 'l1', Code: 'A01-03', Warehouse: 'w1' },
  { ID: 'l2', Code: 'C01-05 ', Warehouse: 'w3' },
]

describe('scanGate', () => {
  it('ignores the same code repeated within 100 ms', () => {
    const gate = scanGate()
    expect(gate.accept('44-100434', 1000)).toBe(true)
    expect(gate.accept('44-100434', 1050)).toBe(false)
    expect(gate.accept('44-100434', 1099)).toBe(false)
  })
  it('accepts the same code after the window and another code at once', () => {
    const gate = scanGate()
    expect(gate.accept('A', 0)).toBe(true)
    expect(gate.accept('B', 10)).toBe(true)
    expect(gate.accept('A', 20)).toBe(true)
    expect(gate.accept('A', 120)).toBe(true)
  })
  it('measures the window from the last accepted scan', () => {
    const gate = scanGate(100)
    expect(gate.accept('A', 0)).toBe(true)
    expect(gate.accept('A', 90)).toBe(false)
    expect(gate.accept('A', 150)).toBe(true)
  })
})

describe('cleanScan', () => {
  it('drops blanks and control characters', () => {
    expect(cleanScan('  44-100434\r')).toBe('44-100434')
    expect(cleanScan('\u001d8715166523257\n')).toBe('8715166523257')
    expect(cleanScan('   ')).toBe('')
  })
})

describe('classifyScan', () => {
  it('knows storage locations by code, in any case', () => {
    expect(classifyScan('a01-03', locations)).toEqual({ kind: 'location', location: locations[0] })
    expect(classifyScan('C01-05', locations)).toEqual({ kind: 'location', location: locations[1] })
  })
  it('reads SO-prefixed numbers as shop orders', () => {
    expect(classifyScan('SO 24098', locations)).toEqual({ kind: 'shopOrder', number: 24098 })
    expect(classifyScan('so-24098', locations)).toEqual({ kind: 'shopOrder', number: 24098 })
    expect(classifyScan('SO24098', locations)).toEqual({ kind: 'shopOrder', number: 24098 })
  })
  it('takes anything else as an item code or barcode', () => {
    expect(classifyScan('44-100434', locations)).toEqual({ kind: 'item', code: '44-100434', orderNumber: null })
    expect(classifyScan('8715166523257', locations)).toEqual({ kind: 'item', code: '8715166523257', orderNumber: null })
    expect(classifyScan('SOAP-1', locations)).toEqual({ kind: 'item', code: 'SOAP-1', orderNumber: null })
  })
  it('says when there is nothing', () => {
    expect(classifyScan('', locations)).toEqual({ kind: 'empty' })
    expect(classifyScan(' \r', locations)).toEqual({ kind: 'empty' })
  })
  it('finds a location through blanks and scanner control characters', () => {
    expect(classifyScan(' a01-03\r', locations)).toEqual({ kind: 'location', location: locations[0] })
  })
})

describe('classifyCode', () => {
  it('reads shop orders with or without the SO prefix, as every scan box and search must', () => {
    expect(classifyCode('SO 24005')).toEqual({ kind: 'shopOrder', number: 24005 })
    expect(classifyCode(' so-24005\r')).toEqual({ kind: 'shopOrder', number: 24005 })
    expect(classifyCode('24005')).toEqual({ kind: 'item', code: '24005', orderNumber: 24005 })
  })
  it('keeps barcodes and codes as items, never as order numbers', () => {
    expect(classifyCode('8715166523257')).toEqual({ kind: 'item', code: '8715166523257', orderNumber: null })
    expect(classifyCode('44-100434')).toEqual({ kind: 'item', code: '44-100434', orderNumber: null })
    expect(classifyCode('SO 24005 A')).toEqual({ kind: 'item', code: 'SO 24005 A', orderNumber: null })
  })
  it('reads PO-prefixed numbers as purchase orders, as printed on a delivery note', () => {
    expect(classifyCode('PO 40080')).toEqual({ kind: 'purchaseOrder', number: 40080 })
    expect(classifyCode('po-40080\r')).toEqual({ kind: 'purchaseOrder', number: 40080 })
    expect(classifyCode('PO40080')).toEqual({ kind: 'purchaseOrder', number: 40080 })
    expect(classifyCode('IO 40080')).toEqual({ kind: 'purchaseOrder', number: 40080 })
    expect(classifyCode('POT-1')).toEqual({ kind: 'item', code: 'POT-1', orderNumber: null })
    expect(shopOrderNumberOf('PO 40080')).toBeNull()
  })
  it('says when there is nothing', () => {
    expect(classifyCode('  ')).toEqual({ kind: 'empty' })
  })
})

describe('barcodes', () => {
  it('writes one GTIN in each of its lengths, the scanned form first', () => {
    expect(barcodeForms('036000291452')).toEqual(['036000291452', '0036000291452', '00036000291452'])
    expect(barcodeForms('00036000291452')).toEqual(['00036000291452', '036000291452', '0036000291452'])
    expect(barcodeForms('4006381333931')).toEqual(['4006381333931', '04006381333931'])
    expect(barcodeForms('96385074')).toEqual(['96385074', '000096385074', '0000096385074', '00000096385074'])
  })
  it('leaves any other code as it is', () => {
    expect(barcodeForms('44-100434')).toEqual(['44-100434'])
    expect(barcodeForms('1234567')).toEqual(['1234567'])
    expect(barcodeForms(' \r')).toEqual([])
  })
  it('sees the same number with other zeros in front as the same barcode', () => {
    expect(sameBarcode('0036000291452', '036000291452')).toBe(true)
    expect(sameBarcode('4006381333931', '4006381333931\r')).toBe(true)
    expect(sameBarcode('4006381333931', '4006381333932')).toBe(false)
    expect(sameBarcode('A-1', 'a-1')).toBe(false)
    expect(sameBarcode('', '')).toBe(false)
    expect(sameBarcode(null, '1')).toBe(false)
  })
})

describe('shopOrderNumberOf', () => {
  it('gives the number an SO code or a bare number names', () => {
    expect(shopOrderNumberOf('SO 24005')).toBe(24005)
    expect(shopOrderNumberOf('SO24005')).toBe(24005)
    expect(shopOrderNumberOf(' 24005 ')).toBe(24005)
  })
  it('gives null for codes, barcodes and nothing', () => {
    expect(shopOrderNumberOf('44-100434')).toBeNull()
    expect(shopOrderNumberOf('8715166523257')).toBeNull()
    expect(shopOrderNumberOf('')).toBeNull()
  })
})
