import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { KEY_MOVE_DELAY_MS, keyMoveBuffer, type KeyMove } from './keyMoves.ts'

describe('arrow-key moves', () => {
  let writes: KeyMove[]
  let shown: (KeyMove | null)[]
  beforeEach(() => {
    vi.useFakeTimers()
    writes = []
    shown = []
  })
  afterEach(() => vi.useRealTimers())
  const buffer = () =>
    keyMoveBuffer(
      (m) => writes.push(m),
      (m) => shown.push(m),
    )

  it('writes three presses once, as their sum, after the keys rest', () => {
    const b = buffer()
    b.press('move', 1)
    vi.advanceTimersByTime(KEY_MOVE_DELAY_MS - 100)
    b.press('move', 1)
    vi.advanceTimersByTime(KEY_MOVE_DELAY_MS - 100)
    b.press('move', 1)
    expect(writes).toEqual([])
    // the bar moves at once: every press is shown
    expect(shown).toEqual([
      { mode: 'move', steps: 1 },
      { mode: 'move', steps: 2 },
      { mode: 'move', steps: 3 },
    ])
    vi.advanceTimersByTime(KEY_MOVE_DELAY_MS - 1)
    expect(writes).toEqual([])
    vi.advanceTimersByTime(1)
    expect(writes).toEqual([{ mode: 'move', steps: 3 }])
    expect(shown.at(-1)).toBeNull()
    expect(b.pending()).toBeNull()
  })

  it('writes at once on flush (the bar loses focus), and not again later', () => {
    const b = buffer()
    b.press('end', -1)
    b.press('end', -1)
    b.flush()
    expect(writes).toEqual([{ mode: 'end', steps: -2 }])
    vi.advanceTimersByTime(KEY_MOVE_DELAY_MS * 2)
    expect(writes).toHaveLength(1)
    b.flush()
    expect(writes).toHaveLength(1)
  })

  it('writes nothing when the presses cancel out', () => {
    const b = buffer()
    b.press('move', 1)
    b.press('move', -1)
    vi.advanceTimersByTime(KEY_MOVE_DELAY_MS)
    expect(writes).toEqual([])
    expect(shown.at(-1)).toBeNull()
  })

  it('writes the gathered move first when the kind of move changes', () => {
    const b = buffer()
    b.press('move', 1)
    b.press('move', 1)
    b.press('end', 1)
    expect(writes).toEqual([{ mode: 'move', steps: 2 }])
    vi.advanceTimersByTime(KEY_MOVE_DELAY_MS)
    expect(writes).toEqual([
      { mode: 'move', steps: 2 },
      { mode: 'end', steps: 1 },
    ])
  })
})
