import { useId, useState, type ReactNode } from 'react'

/**
 * A short explanation shown while the pointer is over, or the keyboard focus is on, the
 * trigger; it fades in over 250 ms (spec §9). Escape hides it.
 */
export function Tooltip({
  text,
  children,
  side = 'bottom',
  align = 'center',
}: {
  text: string
  children: ReactNode
  /**
   * `right`: beside the trigger, rising from its bottom edge over the room above it, for a
   * trigger whose text below would cover what it explains (a window's title above its fields).
   */
  side?: 'top' | 'bottom' | 'right'
  /** `start` for triggers near the left edge, so the text does not run off the screen. */
  align?: 'center' | 'start'
}) {
  const id = useId()
  const [open, setOpen] = useState(false)
  // beside the trigger the room above is a title's line and the window's edge: a little tighter
  const place =
    side === 'right'
      ? 'bottom-0 left-full ml-2 max-w-80 py-1.5'
      : `max-w-72 py-2 ${align === 'start' ? 'left-0' : 'left-1/2 -translate-x-1/2'} ${side === 'top' ? 'bottom-full mb-2' : 'top-full mt-2'}`
  return (
    <span
      className="relative inline-flex"
      onMouseEnter={() => setOpen(true)}
      onMouseLeave={() => setOpen(false)}
      onFocus={() => setOpen(true)}
      onBlur={() => setOpen(false)}
      onKeyDown={(e) => {
        if (e.key === 'Escape') setOpen(false)
      }}
      aria-describedby={id}
    >
      {children}
      <span
        id={id}
        role="tooltip"
        className={`pointer-events-none absolute z-50 w-max rounded ${place} bg-slate-900 px-3 text-xs font-normal leading-snug text-white shadow-lg transition-opacity duration-250 ${
          open ? 'visible opacity-100' : 'invisible opacity-0'
        }`}
      >
        {text}
      </span>
    </span>
  )
}

/** A round "i" button that only carries a tooltip. */
export function InfoTip({ label, text, align, side }: { label: string; text: string; align?: 'center' | 'start'; side?: 'top' | 'bottom' | 'right' }) {
  return (
    <Tooltip text={text} align={align} side={side}>
      {/* under 768 px a 44 px tap area around the same small circle */}
      <button
        type="button"
        aria-label={label}
        className="group inline-flex items-center justify-center rounded-full focus:ring-2 focus:ring-sky-600 focus:outline-none max-md:h-11 max-md:w-11"
      >
        <span className="inline-flex h-6 w-6 items-center justify-center rounded-full border border-slate-300 text-xs font-semibold text-slate-600 group-hover:bg-slate-100">
          i
        </span>
      </button>
    </Tooltip>
  )
}
