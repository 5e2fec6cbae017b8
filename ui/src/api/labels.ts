// Labels: a PDF for a new tab, or a job on an IPP printer (`/api/v1/labels`).
import { getLanguage } from '../i18n/index.ts'
import { ApiError, isFetchFailure, networkError } from './client.ts'
import { call, type BodyOf, type Route, type Schema } from './contract.ts'

export type LabelSource = Schema<'LabelSource'>

/** A record to label: its id alone (the source's own print count), or with how many labels. */
export type LabelSelection = Schema<'Selection'>

export interface LabelRequest {
  source: LabelSource
  ids: LabelSelection[]
  type: string
  /** Copies of the whole batch (the server's default is 1). */
  copies?: number
}

/** The request as sent: `copies` only when more than one. */
function body({ copies, ...req }: LabelRequest): BodyOf<'/labels', 'post'> {
  return copies && copies > 1 ? { ...req, copies } : req
}

/** Spec §4's result of a generation, from the `X-Label-Result` header. */
export type LabelResult = Schema<'LabelResult'>

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
  let res: Response
  try {
    // fetched, not `call`ed: the answer is a PDF, and the result comes in a header
    res = await fetchImpl(`/api/v1${'/labels' satisfies Route}`, {
      method: 'POST',
      // the warnings in the result header, and a refusal, come in the user's language
      headers: { 'Content-Type': 'application/json', Accept: 'application/pdf, application/json', 'Accept-Language': getLanguage() },
      credentials: 'same-origin',
      body: JSON.stringify(body(req)),
    })
  } catch (e) {
    // the browser's own text ("Failed to fetch") tells a user nothing: the catalogue's does
    throw isFetchFailure(e) ? networkError() : e
  }
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

/** The job queued, with the result of making its labels. */
export type PrintAnswer = Schema<'Printed'>

/** How long a PDF's address stays valid after its tab got it (the viewer may read it again to save or print). */
const PDF_URL_LIFETIME_MS = 60_000

/**
 * The labels as a PDF in `tab`, which the click itself opened (a window opened after the answer
 * is blocked as a pop-up); without one a new tab is tried. The tab is closed when no PDF comes.
 */
export async function openLabelsPdf(
  req: LabelRequest,
  tab: Window | null,
  fetchImpl: typeof fetch = fetch,
): Promise<{ url: string; result: LabelResult | null }> {
  let answer: Awaited<ReturnType<typeof labelsPdf>>
  try {
    answer = await labelsPdf(req, fetchImpl)
  } catch (e) {
    tab?.close()
    throw e
  }
  const url = URL.createObjectURL(answer.pdf)
  if (tab) tab.location.href = url
  else window.open(url, '_blank')
  return { url, result: answer.result }
}

/** Gives up a PDF's address once its tab has surely read it. */
export function releasePdfUrl(url: string): void {
  setTimeout(() => URL.revokeObjectURL(url), PDF_URL_LIFETIME_MS)
}

/** The labels as a job on `printer`. */
export const printLabels = (req: LabelRequest, printer: string) => call('post', '/labels/print', { body: { ...body(req), printer } })
