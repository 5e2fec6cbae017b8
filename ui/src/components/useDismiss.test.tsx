import { cleanup, fireEvent, render } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { useDropdown } from './useDismiss.ts'

/** A menu as the app's dropdowns make it (useDropdown, on useDismiss). */
function Menu() {
  const { open, toggle, area, trigger } = useDropdown()
  return (
    <>
      <div ref={area}>
        <button type="button" ref={trigger} aria-expanded={open} onClick={toggle}>
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

describe('useDropdown and useDismiss', () => {
  it('the trigger opens and closes it again', () => {
    const view = render(<Menu />)
    fireEvent.click(view.getByText('menu'))
    expect(view.getByText('menu').getAttribute('aria-expanded')).toBe('true')
    fireEvent.click(view.getByText('menu'))
    expect(view.queryByText('item')).toBeNull()
    expect(view.getByText('menu').getAttribute('aria-expanded')).toBe('false')
  })

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
