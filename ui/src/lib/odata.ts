// OData literals and filters for reads of the provider through `/exact/urlDirect`.

/** A local calendar day as `YYYY-MM-DD`. */
export function isoDay(d: Date): string {
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`
}

export const guidLit = (id: string) => `guid'${id.replace(/[{}']/g, '')}'`

/** The start of a day (`YYYY-MM-DD`, or a local Date's day) as an OData datetime literal. */
export const dayLit = (d: Date | string) => `datetime'${typeof d === 'string' ? d : isoDay(d)}T00:00:00'`

/** `(F eq guid'a' or F eq guid'b')`: OData v2 has no `in`. */
export function anyGuid(field: string, ids: readonly string[]): string {
  return `(${ids.map((id) => `${field} eq ${guidLit(id)}`).join(' or ')})`
}

export interface DirectQuery {
  filter?: string
  select?: string
  orderby?: string
  top?: number
}

/** A provider path with its query options; values are percent-encoded once. */
export function directUrl(path: string, q: DirectQuery): string {
  const parts: string[] = []
  if (q.filter) parts.push(`$filter=${encodeURIComponent(q.filter)}`)
  if (q.select) parts.push(`$select=${encodeURIComponent(q.select)}`)
  if (q.orderby) parts.push(`$orderby=${encodeURIComponent(q.orderby)}`)
  if (q.top !== undefined) parts.push(`$top=${q.top}`)
  return parts.length ? `${path}?${parts.join('&')}` : path
}
