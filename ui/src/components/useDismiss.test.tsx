import { cleanup, fireEvent, render } from '@testing-library/react'
import { useCallback, useRef, useState } from 'react'
import { afterEach, describe, expect, it } from 'vitest'
import { useDismiss } from './useDismiss.ts'

function Menu() {
  const [open, setOpen] = useState(false)
  const area = useRef<HTMLDivElement>(null)
  const trigger = useRef<HTMLButtonElement>(null)
  useDismiss(open, area, useCallback(() => setOpen(false), []), trigger)
  return (
    <>
      <div ref={area}>
        <button type="button" ref={trigger} onClick={() => setOpen(true)}>
          menu
        </button>
        {open && (
          <button type="button" role="menuitem">
            item
          </button>
        )}
      </div>
      <p>outside</p>
    </>
  )
}

afterEach(cleanup)

describe('useDismiss', () => {
  it('Escape closes and gives the focus back to the trigger', () => {
    const view = render(<Menu />)
    fireEvent.click(view.getByText('menu'))
    view.getByText('item').focus()
    fireEvent.keyDown(document, { key: 'Escape' })
    expect(view.queryByText('item')).toBeNull()
    expect(document.activeElement).toBe(view.getByText('menu'))
  })

  it('a press outside closes, one inside does not, other keys do nothing', () => {
    const view = render(<Menu />)
    fireEvent.click(view.getByText('menu'))
    fireEvent.mouseDown(view.getByText('item'))
    fireEvent.keyDown(document, { key: 'a' })
    expect(view.queryByText('item')).not.toBeNull()
    fireEvent.mouseDown(view.getByText('outside'))
    expect(view.queryByText('item')).toBeNull()
  })
})
