// A Stock Manager export (NDJSON): its header line is read in the browser before anything is
// sent, so a wrong file or another organization's file is refused at once with a clear message.
// The server checks every row again (the dry run) before it replaces anything.

export const EXPORT_FORMAT = 'stock-manager-export'
export const EXPORT_VERSION = 1
/** The server takes files up to 1 GiB. */
export const MAX_IMPORT_BYTES = 1 << 30

export interface ExportHeader {
  division: number
  name: string
  exported_at: string | null
  last_sync: string | null
  tables: Record<string, number>
}

export type HeaderCheck =
  { ok: true; header: ExportHeader } | { ok: false; reason: 'empty' | 'notJson' | 'notExport' | 'version' | 'otherDivision'; division?: number }

/** Checks the file's first line against the export format and the signed-in organization. */
export function checkHeader(firstLine: string, division: number): HeaderCheck {
  const line = firstLine.trim()
  if (!line) return { ok: false, reason: 'empty' }
  let v: unknown
  try {
    v = JSON.parse(line)
  } catch {
    return { ok: false, reason: 'notJson' }
  }
  if (typeof v !== 'object' || v === null || (v as { format?: unknown }).format !== EXPORT_FORMAT) {
    return { ok: false, reason: 'notExport' }
  }
  const h = v as Record<string, unknown>
  if (h.version !== EXPORT_VERSION) return { ok: false, reason: 'version' }
  if (h.division !== division) {
    return { ok: false, reason: 'otherDivision', division: typeof h.division === 'number' ? h.division : undefined }
  }
  const tables: Record<string, number> = {}
  if (h.tables && typeof h.tables === 'object') {
    for (const [k, n] of Object.entries(h.tables as Record<string, unknown>)) if (typeof n === 'number') tables[k] = n
  }
  return {
    ok: true,
    header: {
      division,
      name: typeof h.name === 'string' ? h.name : '',
      exported_at: typeof h.exported_at === 'string' ? h.exported_at : null,
      last_sync: typeof h.last_sync === 'string' ? h.last_sync : null,
      tables,
    },
  }
}

/** The first line of a text (the whole text when it has one line). */
export function firstLine(text: string): string {
  const end = text.indexOf('\n')
  return end < 0 ? text : text.slice(0, end)
}

/** Whole percent of an upload, 0 to 100 (0 while the size is unknown). */
export function percent(loaded: number, total: number): number {
  if (!(total > 0)) return 0
  return Math.min(100, Math.max(0, Math.floor((loaded / total) * 100)))
}

/** Minutes and seconds left of the re-authentication, never below zero ("9:05"). */
export function timeLeft(untilMs: number, nowMs: number): string {
  const s = Math.max(0, Math.floor((untilMs - nowMs) / 1000))
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`
}
