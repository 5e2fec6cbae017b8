import { cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { Field, inputClass } from './Field.tsx'

afterEach(cleanup)

describe('Field', () => {
  it('names the control by its label and describes it by its help and error', () => {
    render(
      <Field label="Quantity" id="qty" help="In the item's unit" error="Too many">
        {(p) => <input {...p} className={inputClass} />}
      </Field>,
    )
    const input = screen.getByLabelText('Quantity')
    expect(input.id).toBe('qty')
    expect(input.getAttribute('aria-invalid')).toBe('true')
    expect(input.getAttribute('aria-describedby')).toBe('qty-help qty-error')
    expect(document.getElementById('qty-help')?.textContent).toBe("In the item's unit")
    expect(document.getElementById('qty-error')?.textContent).toBe('Too many')
  })

  it('adds nothing to a plain control and makes an id when given none', () => {
    render(<Field label="Note">{(p) => <input {...p} />}</Field>)
    const input = screen.getByLabelText('Note')
    expect(input.id).not.toBe('')
    expect(input.hasAttribute('aria-describedby')).toBe(false)
    expect(input.hasAttribute('aria-invalid')).toBe(false)
  })
})
