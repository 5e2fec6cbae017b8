import { strToU8, zipSync } from 'fflate'
import { describe, expect, it } from 'vitest'
import { columnIndex, parseCsv, parseXlsx, readSheet } from './sheet.ts'

describe('parseCsv', () => {
  it('reads commas, quotes, doubled quotes and newlines in quotes', () => {
    expect(parseCsv('Code,Description\r\nA1,"Bolt, M8"\nA2,"Say ""hi""\nthere"\n')).toEqual([
      ['Code', 'Description'],
      ['A1', 'Bolt, M8'],
      ['A2', 'Say "hi"\nthere'],
    ])
  })

  it('finds semicolons (Dutch Excel) and tabs, drops a BOM and blank lines', () => {
    expect(parseCsv('\uFEFFCode;Omschrijving\n\nA1;Moer 3,5 mm\n')).toEqual([
      ['Code', 'Omschrijving'],
      ['A1', 'Moer 3,5 mm'],
    ])
    expect(parseCsv('a\tb\n1\t2')).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ])
  })
})

/** A minimal workbook as Excel writes it: shared strings, numbers, a boolean, a gap. */
function workbook(): Uint8Array {
  const ns = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main'
  const rel = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'
  return zipSync({
    '[Content_Types].xml': strToU8('<Types/>'),
    'xl/workbook.xml': strToU8(`<workbook xmlns="${ns}" xmlns:r="${rel}"><sheets><sheet name="Items" sheetId="1" r:id="rId3"/></sheets></workbook>`),
    'xl/_rels/workbook.xml.rels': strToU8(
      `<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId3" Type="${rel}/worksheet" Target="worksheets/items.xml"/></Relationships>`,
    ),
    'xl/sharedStrings.xml': strToU8(
      `<sst xmlns="${ns}"><si><t>Code</t></si><si><t>Description</t></si><si><r><t>Bolt </t></r><r><t>M8</t></r></si><si><t>Stock item</t></si></sst>`,
    ),
    'xl/worksheets/items.xml': strToU8(
      `<worksheet xmlns="${ns}"><sheetData>` +
        `<row r="1"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s"><v>1</v></c><c r="D1" t="s"><v>3</v></c></row>` +
        `<row r="3"><c r="A3"><v>1001</v></c><c r="B3" t="s"><v>2</v></c><c r="C3"><v>0.30000000000000004</v></c><c r="D3" t="b"><v>1</v></c></row>` +
        `<row r="4"><c r="A4" t="inlineStr"><is><t>X-2</t></is></c></row>` +
        `</sheetData></worksheet>`,
    ),
  })
}

describe('parseXlsx', () => {
  it('reads the first sheet through the workbook relationships', () => {
    expect(parseXlsx(workbook())).toEqual([['Code', 'Description', '', 'Stock item'], ['1001', 'Bolt M8', '0.3', 'TRUE'], ['X-2']])
  })

  it('is chosen for an .xlsx upload', async () => {
    const upload = (name: string, bytes: Uint8Array) => ({ name, arrayBuffer: async () => bytes.slice().buffer })
    expect((await readSheet(upload('items.xlsx', workbook())))[1][1]).toBe('Bolt M8')
    expect(await readSheet(upload('x.csv', new TextEncoder().encode('a,b\n1,2')))).toEqual([
      ['a', 'b'],
      ['1', '2'],
    ])
  })

  it('turns cell references into columns', () => {
    expect(['A1', 'Z9', 'AA10', 'AB3'].map(columnIndex)).toEqual([0, 25, 26, 27])
  })
})
