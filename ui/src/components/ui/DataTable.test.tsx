import { cleanup, render, screen, within } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { DataTable, type Column } from './DataTable.tsx'

afterEach(cleanup)

interface Row {
  name: string
  rows: number
}

const columns: Column<Row>[] = [
  { key: 'name', header: 'Table', cell: (r) => r.name },
  { key: 'rows', header: 'Rows', className: 'text-right', cell: (r) => String(r.rows) },
]

describe('DataTable', () => {
  it('has a column header per column and a cell per row and column', () => {
    render(<DataTable columns={columns} rows={[{ name: 'items', rows: 3 }]} rowKey={(r) => r.name} rowProps={(r) => ({ 'data-table': r.name })} />)
    expect(screen.getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Table', 'Rows'])
    expect(screen.getAllByRole('columnheader')[0].getAttribute('scope')).toBe('col')
    const row = screen.getAllByRole('row')[1]
    expect(row.dataset.table).toBe('items')
    expect(
      within(row)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(['items', '3'])
    expect(within(row).getAllByRole('cell')[1].className).toBe('text-right')
  })

  it('shows the empty state instead of a table without rows', () => {
    render(<DataTable columns={columns} rows={[]} rowKey={(r) => r.name} empty={<p>No tables</p>} />)
    expect(screen.queryByRole('table')).toBeNull()
    expect(screen.getByText('No tables')).toBeTruthy()
  })
})
