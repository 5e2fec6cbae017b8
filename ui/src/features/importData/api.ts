// ImportData's calls: the import of an export file with upload progress (fetch cannot report it,
// XMLHttpRequest can). The fresh re-authentication it needs is in api/auth.ts.
import { ApiError, networkError } from '../../api/client.ts'
import { getLanguage } from '../../i18n/index.ts'

export interface ImportReport {
  dry_run: boolean
  applied: boolean
  division: number | null
  exported_at: string | null
  tables: Record<string, number>
  error_count: number
  errors: { line: number; message: string }[]
}

export const EXPORT_URL = '/api/v1/importData/export'

/**
 * Sends the file; a 422 with a report (rows with errors) is an answer, not a failure. Other
 * errors arrive as ApiError with the server's message.
 */
export function uploadImport(file: Blob, dryRun: boolean, onProgress: (loaded: number, total: number) => void): Promise<ImportReport> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open('POST', `/api/v1/importData/import${dryRun ? '?dryRun=true' : ''}`)
    xhr.setRequestHeader('Content-Type', 'application/x-ndjson')
    xhr.setRequestHeader('Accept', 'application/json')
    xhr.setRequestHeader('Accept-Language', getLanguage())
    xhr.withCredentials = true
    xhr.upload.onprogress = (e) => onProgress(e.loaded, e.lengthComputable ? e.total : file.size)
    // a broken connection says what the catalogue says, in the user's language
    xhr.onerror = () => reject(networkError())
    xhr.onload = () => {
      let body: unknown = null
      try {
        body = JSON.parse(xhr.responseText)
      } catch {
        // not JSON: the status says it
      }
      if (xhr.status === 200 || (xhr.status === 422 && body && typeof body === 'object' && 'tables' in body)) {
        resolve(body as ImportReport)
        return
      }
      const err = (body as { error?: { code?: string; message?: string } } | null)?.error
      reject(new ApiError(xhr.status, err?.code ?? '-', err?.message ?? `HTTP ${xhr.status}`))
    }
    xhr.send(file)
  })
}
