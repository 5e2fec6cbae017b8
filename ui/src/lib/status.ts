// Status names for the provider's codes (spec §3).
import { t, type MessageKey } from '../i18n/index.ts'

const SHOP_ORDER: Record<number, MessageKey> = {
  10: 'status.shopOrder.10',
  20: 'status.shopOrder.20',
  30: 'status.shopOrder.30',
  40: 'status.shopOrder.40',
}

// The spec's codes, plus the ones Exact Online itself sends for material plans (5 Draft, 10 Open,
// 25 Partial, 30 Finished); where they clash (20) the spec's name is kept.
const MATERIAL_PLAN: Record<number, MessageKey> = {
  5: 'status.materialPlan.5',
  10: 'status.materialPlan.10',
  25: 'status.materialPlan.25',
  30: 'status.materialPlan.30',
  12: 'status.materialPlan.12',
  20: 'status.materialPlan.20',
  21: 'status.materialPlan.21',
  45: 'status.materialPlan.45',
}

function code(v: unknown): number {
  return typeof v === 'string' ? Number(v.trim()) : Number(v)
}

/** 10 Open, 20 In Process, 30 Finished, 40 Completed, else N/A. */
export function shopOrderStatusName(status: unknown): string {
  return t(SHOP_ORDER[code(status)] ?? 'status.unknown')
}

/** 12 Open, 20 Partial, 21 Complete, 45 Cancelled (and Exact's 5, 10, 25, 30), else N/A. */
export function materialPlanStatusName(status: unknown): string {
  return t(MATERIAL_PLAN[code(status)] ?? 'status.unknown')
}
