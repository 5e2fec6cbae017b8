import type { HTMLAttributes, ReactNode } from 'react'

export interface Column<R> {
  key: string
  header: ReactNode
  /** Classes of the header cell. */
  headerClassName?: string
  /** Classes of each cell of the column. */
  className?: string
  cell: (row: R) => ReactNode
  /** The cell's own attributes (a test id, a title). */
  cellProps?: (row: R) => HTMLAttributes<HTMLTableCellElement>
}

interface Props<R> {
  columns: readonly Column<R>[]
  rows: readonly R[]
  rowKey: (row: R) => string
  /** Attributes of a row (a test id, a data-* the e2e specs select on). */
  rowProps?: (row: R) => HTMLAttributes<HTMLTableRowElement> & Record<`data-${string}`, string | undefined>
  /** Shown instead of the table when there are no rows; without it an empty table is shown. */
  empty?: ReactNode
  className?: string
  headClassName?: string
  bodyClassName?: string
  /** Attributes of the <table> itself (a test id, a label). */
  tableProps?: HTMLAttributes<HTMLTableElement> & Record<`data-${string}`, string | undefined>
}

/** A plain table of rows: one header cell per column (scope="col"), one cell per row and column. */
export function DataTable<R>({
  columns,
  rows,
  rowKey,
  rowProps,
  empty,
  className = 'w-full text-sm',
  headClassName = 'text-left text-slate-500',
  bodyClassName = 'divide-y divide-slate-100',
  tableProps,
}: Props<R>) {
  if (rows.length === 0 && empty !== undefined) return <>{empty}</>
  return (
    <table className={className} {...tableProps}>
      <thead className={headClassName}>
        <tr>
          {columns.map((c) => (
            <th key={c.key} scope="col" className={c.headerClassName}>
              {c.header}
            </th>
          ))}
        </tr>
      </thead>
      <tbody className={bodyClassName}>
        {rows.map((r) => (
          <tr key={rowKey(r)} {...rowProps?.(r)}>
            {columns.map((c) => (
              <td key={c.key} className={c.className} {...c.cellProps?.(r)}>
                {c.cell(r)}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  )
}
