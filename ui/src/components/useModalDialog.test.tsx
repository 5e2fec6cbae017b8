import { act, cleanup, render } from '@testing-library/react'
import { useRef, useState } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { useModalDialog } from './useModalDialog.ts'

function Dialog({ returnTo }: { returnTo?: React.RefObject<HTMLElement | null> }) {
  const ref = useModalDialog(returnTo)
  return (
    <dialog ref={ref}>
      <button type="button">inside</button>
    </dialog>
  )
}

function Opener({ viaMenu }: { viaMenu: boolean }) {
  const [open, setOpen] = useState(false)
  const menuButton = useRef<HTMLButtonElement>(null)
  return (
    <>
      <button type="button" ref={menuButton}>
        menu
      </button>
      <button type="button" onClick={() => setOpen(true)}>
        open
      </button>
      <button type="button" onClick={() => setOpen(false)}>
        close
      </button>
      {open && <Dialog returnTo={viaMenu ? menuButton : undefined} />}
    </>
  )
}

afterEach(cleanup)

describe('useModalDialog', () => {
  it('gives the focus back to the control that opened the dialog', () => {
    vi.useFakeTimers()
    const view = render(<Opener viaMenu={false} />)
    const open = view.getByText('open')
    open.focus()
    act(() => open.click())
    view.getByText('inside').focus()
    act(() => view.getByText('close').click())
    act(() => vi.runAllTimers())
    expect(document.activeElement).toBe(open)
    vi.useRealTimers()
  })

  it('gives the focus to the given control when the opener is gone', () => {
    vi.useFakeTimers()
    const view = render(<Opener viaMenu />)
    const open = view.getByText('open')
    open.focus()
    act(() => open.click())
    view.getByText('inside').focus()
    act(() => view.getByText('close').click())
    act(() => vi.runAllTimers())
    expect(document.activeElement).toBe(view.getByText('menu'))
    vi.useRealTimers()
  })
})
