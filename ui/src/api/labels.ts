// Labels: a PDF for a new tab, or a job on an IPP printer (`/api/v1/labels`).
import { api, ApiError } from './client.ts'

export type LabelSource = 'shop_order' | 'item_direct' | 'goods_receipt'

export interface LabelRequest {
  source: LabelSource
  ids: { id: string; print_count: number }[]
  type: string
}

/** Spec §4's result of a generation, from the `X-Label-Result` header. */
export interface LabelResult {
  status: 'SUCCESS' | 'ERROR' | 'WARNING' | 'INFO'
  labels: number
  messages: string[]
}

function readResult(res: Response): LabelResult | null {
  const raw = res.headers.get('x-label-result')
  if (!raw) return null
  try {
    return JSON.parse(raw) as LabelResult
  } catch {
    return null
  }
}

/** The labels as a PDF; a refusal (no labels, bad ids) comes back as an ApiError. */
export async function labelsPdf(req: LabelRequest, fetchImpl: typeof fetch = fetch): Promise<{ pdf: Blob; result: LabelResult | null }> {
  const res = await fetchImpl('/api/v1/labels', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'application/pdf, application/json' },
    credentials: 'same-origin',
    body: JSON.stringify(req),
  })
  if (!res.ok) {
    let message = `HTTP ${res.status}`
    let code = '-'
    try {
      const body = (await res.json()) as { error?: { code?: string; message?: string } }
      message = body.error?.message ?? message
      code = body.error?.code ?? code
    } catch {
      // keep the status
    }
    throw new ApiError(res.status, code, message)
  }
  return { pdf: await res.blob(), result: readResult(res) }
}

export interface PrintAnswer {
  job: { id: number; state: string; message?: string | null; printer?: string }
  result: LabelResult
}

export const printLabels = (req: LabelRequest, printer: string) =>
  api<PrintAnswer>('/labels/print', { method: 'POST', body: { ...req, printer } })
