import { useEffect, useRef, useState, type ReactNode } from 'react'

/** How long the toast stays by itself. */
export const UNDO_TOAST_MS = 10_000

/** Whether the focus is shown (the keyboard's), not a click's that stays on a button. */
function focusShown(el: EventTarget): boolean {
  try {
    return el instanceof Element && el.matches(':focus-visible')
  } catch {
    return true
  }
}

/** Whether a key press is typing in a field, where Ctrl+Z is the field's own undo. */
function typing(target: EventTarget | null): boolean {
  return target instanceof HTMLElement && (target.isContentEditable || !!target.closest('input, textarea, select'))
}

/**
 * A note at the bottom of the screen about something just done, with a button that takes it
 * back (Ctrl+Z or ⌘Z press it too). Floating, it moves nothing on the page. It goes by itself
 * after `timeoutMs`, but not while the pointer is on it or the keyboard's focus in it (so it
 * can be read and used), or with its close button.
 */
export function UndoToast({
  children,
  undoLabel,
  onUndo,
  closeLabel,
  onClose,
  timeoutMs = UNDO_TOAST_MS,
  stay = false,
  restartOn,
}: {
  children: ReactNode
  undoLabel: string
  /** Absent when there is nothing to take back: no button. */
  onUndo?: () => void
  closeLabel: string
  onClose: () => void
  timeoutMs?: number
  /** Stays until closed (what it says must be read: a refusal). */
  stay?: boolean
  /** What it is about (the next thing done): a new value gives it its whole time again. */
  restartOn?: unknown
}) {
  const [hovered, setHovered] = useState(false)
  const [focused, setFocused] = useState(false)
  const held = hovered || focused
  const close = useRef<HTMLButtonElement>(null)
  const latest = useRef({ onUndo, onClose })
  latest.current = { onUndo, onClose }

  useEffect(() => {
    if (held || stay) return
    const timer = setTimeout(() => latest.current.onClose(), timeoutMs)
    return () => clearTimeout(timer)
  }, [held, stay, timeoutMs, restartOn])

  const undoable = !!onUndo
  useEffect(() => {
    if (!undoable) return
    const key = (e: KeyboardEvent) => {
      if (e.key.toLowerCase() !== 'z' || !(e.ctrlKey || e.metaKey) || e.shiftKey || e.altKey || typing(e.target)) return
      e.preventDefault()
      latest.current.onUndo?.()
    }
    window.addEventListener('keydown', key)
    return () => window.removeEventListener('keydown', key)
  }, [undoable])

  return (
    <div
      role="status"
      data-testid="undo-toast"
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => setHovered(false)}
      onFocus={(e) => setFocused(focusShown(e.target))}
      onBlur={(e) => {
        if (!e.currentTarget.contains(e.relatedTarget)) setFocused(false)
      }}
      className="fixed bottom-4 left-4 z-40 flex max-w-[calc(100vw-2rem)] items-center gap-2 rounded-lg bg-slate-900 py-1 pr-1 pl-4 text-sm text-white shadow-xl md:max-w-xl"
    >
      <div className="min-w-0 py-1.5">{children}</div>
      {onUndo && (
        <button
          type="button"
          onClick={(e) => {
            // the button goes with what it undoes: the focus stays in the toast
            if (document.activeElement === e.currentTarget) close.current?.focus()
            onUndo()
          }}
          aria-keyshortcuts="Control+Z Meta+Z"
          className="min-h-11 shrink-0 rounded px-3 font-semibold text-sky-300 underline underline-offset-2 hover:bg-white/10 focus-visible:ring-2 focus-visible:ring-sky-300 focus-visible:outline-none"
        >
          {undoLabel}
        </button>
      )}
      <button
        ref={close}
        type="button"
        onClick={onClose}
        aria-label={closeLabel}
        className="min-h-11 min-w-11 shrink-0 rounded text-lg hover:bg-white/10 focus-visible:ring-2 focus-visible:ring-sky-300 focus-visible:outline-none"
      >
        ×
      </button>
    </div>
  )
}
