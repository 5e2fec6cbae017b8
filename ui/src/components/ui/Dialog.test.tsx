import { cleanup, fireEvent, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Dialog } from './Dialog.tsx'

afterEach(cleanup)

describe('Dialog', () => {
  it('opens named by its title and asks onClose on Escape instead of closing itself', () => {
    const onClose = vi.fn()
    render(
      <Dialog labelledBy="t" onClose={onClose} className="m-auto">
        <h2 id="t">Receive</h2>
      </Dialog>,
    )
    const dialog = screen.getByRole('dialog', { name: 'Receive' })
    expect(dialog.hasAttribute('open')).toBe(true)
    const cancel = new Event('cancel', { cancelable: true })
    fireEvent(dialog, cancel)
    expect(cancel.defaultPrevented).toBe(true)
    expect(onClose).toHaveBeenCalledOnce()
    expect(dialog.hasAttribute('open')).toBe(true)
  })
})
