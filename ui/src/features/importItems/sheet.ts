// Reading an uploaded table: CSV (comma, semicolon or tab, quoted fields) or the first
// worksheet of an XLSX workbook. Both give rows of strings; the first row is the header.
import { strFromU8, unzipSync } from 'fflate'

export type Sheet = string[][]

/** Parses CSV text; the separator is the one of `,` `;` `\t` found most in the first line. */
export function parseCsv(input: string): Sheet {
  const text = input.replace(/^\uFEFF/, '')
  const firstLine = text.slice(0, text.search(/\r?\n|$/))
  const sep = [';', '\t', ','].reduce((best, c) => (firstLine.split(c).length > firstLine.split(best).length ? c : best), ',')
  const rows: Sheet = []
  let row: string[] = []
  let field = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (quoted) {
      if (c === '"') {
        if (text[i + 1] === '"') {
          field += '"'
          i++
        } else quoted = false
      } else field += c
    } else if (c === '"' && field === '') quoted = true
    else if (c === sep) {
      row.push(field)
      field = ''
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++
      row.push(field)
      rows.push(row)
      row = []
      field = ''
    } else field += c
  }
  if (field !== '' || row.length > 0) {
    row.push(field)
    rows.push(row)
  }
  return dropEmptyRows(rows)
}

function dropEmptyRows(rows: Sheet): Sheet {
  return rows.filter((r) => r.some((c) => c.trim() !== ''))
}

/** Column index of a cell reference such as "AB12" (0-based). */
export function columnIndex(ref: string): number {
  let n = 0
  for (const ch of ref.replace(/\d+$/, '').toUpperCase()) n = n * 26 + (ch.charCodeAt(0) - 64)
  return n - 1
}

function elements(parent: Document | Element, localName: string): Element[] {
  return Array.from(parent.getElementsByTagNameNS('*', localName))
}

function textOf(el: Element): string {
  // rich text keeps its runs in <r><t>; phonetic runs (<rPh>) are not part of the value
  const runs = elements(el, 't').filter((t) => t.parentElement?.localName !== 'rPh')
  return runs.map((t) => t.textContent ?? '').join('')
}

/** A number as the sheet stores it, without binary noise (0.30000000000000004 → 0.3). */
function cleanNumber(raw: string): string {
  const n = Number(raw)
  return Number.isFinite(n) ? String(Number(n.toPrecision(15))) : raw
}

/** The first worksheet of an XLSX file as rows of strings (dates stay serial numbers). */
export function parseXlsx(data: Uint8Array): Sheet {
  const files = unzipSync(data, { filter: (f) => f.name.startsWith('xl/') && /\.(xml|rels)$/.test(f.name) })
  const xml = (name: string) => {
    const f = files[name]
    return f ? new DOMParser().parseFromString(strFromU8(f), 'application/xml') : null
  }
  const shared = xml('xl/sharedStrings.xml')
  const strings = shared ? elements(shared, 'si').map(textOf) : []

  // the first sheet in workbook order, through its relationship
  let sheetPath = 'xl/worksheets/sheet1.xml'
  const workbook = xml('xl/workbook.xml')
  const first = workbook ? elements(workbook, 'sheet')[0] : undefined
  const relId = first?.getAttributeNS('http://schemas.openxmlformats.org/officeDocument/2006/relationships', 'id') ?? first?.getAttribute('r:id')
  const relsDoc = xml('xl/_rels/workbook.xml.rels')
  if (relId && relsDoc) {
    const target = elements(relsDoc, 'Relationship')
      .find((r) => r.getAttribute('Id') === relId)
      ?.getAttribute('Target')
    if (target) sheetPath = target.startsWith('/') ? target.slice(1) : `xl/${target.replace(/^\.\//, '')}`
  }
  const sheet = xml(sheetPath)
  if (!sheet) throw new Error('the workbook has no worksheet')

  const rows: Sheet = []
  for (const r of elements(sheet, 'row')) {
    const rowIndex = Number(r.getAttribute('r') ?? rows.length + 1) - 1
    const cells: string[] = []
    for (const c of elements(r, 'c')) {
      const ref = c.getAttribute('r')
      const col = ref ? columnIndex(ref) : cells.length
      const type = c.getAttribute('t')
      const v = elements(c, 'v')[0]?.textContent ?? ''
      let value: string
      if (type === 's') value = strings[Number(v)] ?? ''
      else if (type === 'inlineStr') value = textOf(c)
      else if (type === 'b') value = v === '1' ? 'TRUE' : 'FALSE'
      else if (type === 'str' || type === 'e') value = v
      else value = v === '' ? '' : cleanNumber(v)
      while (cells.length < col) cells.push('')
      cells[col] = value
    }
    while (rows.length < rowIndex) rows.push([])
    rows[rowIndex] = cells
  }
  return dropEmptyRows(rows)
}

/** Reads an uploaded file by its name: .xlsx as a workbook, anything else as CSV text. */
export async function readSheet(file: Pick<File, 'name' | 'arrayBuffer'>): Promise<Sheet> {
  const buffer = new Uint8Array(await file.arrayBuffer())
  if (/\.xlsx$/i.test(file.name) || (buffer[0] === 0x50 && buffer[1] === 0x4b)) return parseXlsx(buffer)
  return parseCsv(new TextDecoder('utf-8').decode(buffer))
}
