// Colours of the planning bars: the fill says the shop order's status, the marker its material.
import type { MessageKey } from '../../i18n/index.ts'
import type { Availability } from './logic/availability.ts'

export function statusClass(status: number, onHold: boolean): string {
  if (onHold)
    return 'bg-slate-300 text-slate-800 border-slate-500 bg-[repeating-linear-gradient(135deg,transparent,transparent_6px,rgba(255,255,255,.6)_6px,rgba(255,255,255,.6)_12px)]'
  if (status === 20) return 'bg-amber-200 text-amber-950 border-amber-600'
  return 'bg-sky-200 text-sky-950 border-sky-700'
}

export const AVAILABILITY_DOT: Record<Availability, string> = {
  inStock: 'bg-emerald-600',
  expected: 'bg-amber-500',
  notAvailable: 'bg-red-600',
  none: 'bg-slate-400',
}

export const AVAILABILITY_LABEL: Record<Availability, MessageKey> = {
  inStock: 'planning.availability.inStock',
  expected: 'planning.availability.expected',
  notAvailable: 'planning.availability.notAvailable',
  none: 'planning.availability.none',
}

/** A late order's mark on its bar and in the legend: a red outline, whatever the status fill. */
export const LATE_RING = 'ring-2 ring-red-600 ring-offset-1'
