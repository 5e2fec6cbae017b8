import { act, cleanup, fireEvent, render, screen } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { UNDO_TOAST_MS, UndoToast } from './UndoToast.tsx'

beforeEach(() => vi.useFakeTimers())
afterEach(() => {
  cleanup()
  vi.useRealTimers()
})

function toast(over: Partial<Parameters<typeof UndoToast>[0]> = {}) {
  const props = { undoLabel: 'Undo', closeLabel: 'Close', onUndo: vi.fn(), onClose: vi.fn(), ...over }
  const view = render(
    <UndoToast {...props}>
      <p>Moved SO 24012 to Thu 3 Dec.</p>
    </UndoToast>,
  )
  return { ...props, ...view }
}

describe('UndoToast', () => {
  it('offers Undo, and goes by itself after its time', () => {
    const { onUndo, onClose } = toast()
    expect(screen.getByRole('status').textContent).toContain('Moved SO 24012 to Thu 3 Dec.')
    act(() => vi.advanceTimersByTime(UNDO_TOAST_MS - 1))
    expect(onClose).not.toHaveBeenCalled()
    act(() => vi.advanceTimersByTime(1))
    expect(onClose).toHaveBeenCalledTimes(1)
    fireEvent.click(screen.getByRole('button', { name: 'Undo' }))
    expect(onUndo).toHaveBeenCalledTimes(1)
  })

  it('stays while the pointer is on it, and has its whole time again after', () => {
    const { onClose } = toast()
    fireEvent.mouseEnter(screen.getByRole('status'))
    act(() => vi.advanceTimersByTime(UNDO_TOAST_MS * 3))
    expect(onClose).not.toHaveBeenCalled()
    fireEvent.mouseLeave(screen.getByRole('status'))
    act(() => vi.advanceTimersByTime(UNDO_TOAST_MS))
    expect(onClose).toHaveBeenCalledTimes(1)
  })

  it('starts its time again for the next thing done', () => {
    const { onClose, rerender, onUndo, undoLabel, closeLabel } = toast({ restartOn: 1 })
    act(() => vi.advanceTimersByTime(UNDO_TOAST_MS - 100))
    rerender(
      <UndoToast undoLabel={undoLabel} closeLabel={closeLabel} onUndo={onUndo} onClose={onClose} restartOn={2}>
        <p>Moved SO 24013 to Fri 4 Dec.</p>
      </UndoToast>,
    )
    act(() => vi.advanceTimersByTime(UNDO_TOAST_MS - 100))
    expect(onClose).not.toHaveBeenCalled()
    act(() => vi.advanceTimersByTime(100))
    expect(onClose).toHaveBeenCalledTimes(1)
  })

  it('stays until closed when it must be read', () => {
    const { onClose } = toast({ stay: true, onUndo: undefined })
    expect(screen.queryByRole('button', { name: 'Undo' })).toBeNull()
    act(() => vi.advanceTimersByTime(UNDO_TOAST_MS * 3))
    expect(onClose).not.toHaveBeenCalled()
    fireEvent.click(screen.getByRole('button', { name: 'Close' }))
    expect(onClose).toHaveBeenCalledTimes(1)
  })

  it('takes Ctrl+Z as Undo, but not while typing in a field', () => {
    const { onUndo } = toast()
    const field = document.createElement('input')
    document.body.append(field)
    fireEvent.keyDown(field, { key: 'z', ctrlKey: true })
    expect(onUndo).not.toHaveBeenCalled()
    fireEvent.keyDown(document.body, { key: 'z', metaKey: true })
    expect(onUndo).toHaveBeenCalledTimes(1)
    field.remove()
  })

  it('keeps the focus in the toast when its Undo button goes, and stays while it has it', () => {
    const { onClose } = toast()
    const undo = screen.getByRole('button', { name: 'Undo' })
    undo.focus()
    fireEvent.click(undo)
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Close' }))
    act(() => vi.advanceTimersByTime(UNDO_TOAST_MS * 2))
    expect(onClose).not.toHaveBeenCalled()
  })
})
