import { cleanup, fireEvent, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { Button, buttonClass } from './Button.tsx'

afterEach(cleanup)

describe('Button', () => {
  it('renders the look asked for, with layout classes after it', () => {
    const onClick = vi.fn()
    render(
      <Button type="button" variant="primary" className="flex-1" onClick={onClick}>
        Save
      </Button>,
    )
    const b = screen.getByRole('button', { name: 'Save' })
    expect(b.getAttribute('type')).toBe('button')
    expect(b.className).toBe(`${buttonClass({ variant: 'primary' })} flex-1`)
    fireEvent.click(b)
    expect(onClick).toHaveBeenCalledOnce()
  })

  it('is secondary and of the touch size unless told otherwise', () => {
    expect(buttonClass()).toBe(buttonClass({ variant: 'secondary', size: 'md' }))
    expect(buttonClass()).toContain('min-h-11')
    expect(buttonClass({ variant: 'primary', size: 'lg' })).toContain('min-h-14')
  })

  it('refuses a look that does not exist rather than render an unstyled button', () => {
    expect(() => buttonClass({ variant: 'danger', size: 'lg' })).toThrow('no danger button of size lg')
  })
})
