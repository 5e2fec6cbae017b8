// Arrow-key moves of a planning bar, gathered into one write: each press moves the bar at once,
// and the sum is written once the keys rest (or the bar loses focus), not one write per press.
import type { DragMode } from './timeline.ts'

/** How long after the last press the gathered move is written. */
export const KEY_MOVE_DELAY_MS = 800

export interface KeyMove {
  mode: DragMode
  steps: number
}

export interface KeyMoveBuffer {
  /** One press: `step` columns in `mode`. A press of another mode writes the gathered one first. */
  press(mode: DragMode, step: number): void
  /** Writes what is gathered now (blur, pointer, unmount). */
  flush(): void
  /** The move gathered so far (shown on the bar), or null. */
  pending(): KeyMove | null
}

/**
 * `onChange` follows the gathered move (to show it); `onWrite` gets the sum once, unless the
 * presses cancel out. Timers are the global ones, so tests drive them with fake timers.
 */
export function keyMoveBuffer(onWrite: (move: KeyMove) => void, onChange: (move: KeyMove | null) => void, delayMs: number = KEY_MOVE_DELAY_MS): KeyMoveBuffer {
  let gathered: KeyMove | null = null
  let timer: ReturnType<typeof setTimeout> | null = null
  const flush = () => {
    if (timer !== null) clearTimeout(timer)
    timer = null
    const move = gathered
    gathered = null
    if (!move) return
    onChange(null)
    if (move.steps !== 0) onWrite(move)
  }
  return {
    press(mode, step) {
      if (gathered && gathered.mode !== mode) flush()
      gathered = { mode, steps: (gathered?.steps ?? 0) + step }
      onChange(gathered)
      if (timer !== null) clearTimeout(timer)
      timer = setTimeout(flush, delayMs)
    },
    flush,
    pending: () => gathered,
  }
}
