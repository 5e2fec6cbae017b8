// What a material line still needs: its planned quantity less what Exact has issued (summed by
// the server from the synced material issues), what the server's outbox still has to send, and
// what this device keeps to send. A worker who sees the full plan issues twice.
import type { Booking } from '../../offline/queue.ts'
import type { MaterialPlan } from '../../api/scan.ts'

export const ISSUE_PATH = '/exact/updateMaterialsIssues'

const lower = (s: unknown) => (typeof s === 'string' ? s.toLowerCase() : '')

/** The quantity this device keeps to issue to each material line (lower-case plan id); refused bookings no longer count. */
export function keptIssues(bookings: readonly Booking[], division?: number): Map<string, number> {
  const out = new Map<string, number>()
  for (const b of bookings) {
    if (b.refused || b.path !== ISSUE_PATH || (division !== undefined && b.division !== division)) continue
    const body = b.body as { ShopOrderMaterialPlan?: unknown; Quantity?: unknown } | null
    const plan = lower(body?.ShopOrderMaterialPlan)
    const q = typeof body?.Quantity === 'number' && Number.isFinite(body.Quantity) ? body.Quantity : 0
    if (plan) out.set(plan, (out.get(plan) ?? 0) + q)
  }
  return out
}

export interface ToIssue {
  /** Still to issue: never below 0. */
  open: number
  /** Booked here and not yet in Exact's figures (queued on the server, kept on this device). */
  waiting: number
}

export function toIssue(plan: MaterialPlan, kept: ReadonlyMap<string, number>): ToIssue {
  const waiting = (plan.QueuedQuantity ?? 0) + (kept.get(plan.ID.toLowerCase()) ?? 0)
  const open = Math.max(0, (plan.PlannedQuantity ?? 0) - (plan.IssuedQuantity ?? 0) - waiting)
  return { open: round(open), waiting: round(waiting) }
}

/** The quantity an issue form starts with: what is still to issue, no more than the stock there (null: none to suggest). */
export function suggestedIssue(open: number, available: number | null): number | null {
  const q = available === null ? open : Math.min(open, Math.max(0, available))
  return q > 0 ? round(q) : null
}

const round = (n: number) => Math.round(n * 1e6) / 1e6
