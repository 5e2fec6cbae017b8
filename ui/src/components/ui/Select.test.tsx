import { cleanup, fireEvent, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { inputClass } from './Field.tsx'
import { Select } from './Select.tsx'

afterEach(cleanup)

describe('Select', () => {
  it('lists the prompt, then the options, and reports the choice', () => {
    const onChange = vi.fn()
    render(
      <Select
        aria-label="Warehouse"
        value=""
        onChange={(e) => onChange(e.target.value)}
        options={[
          { value: 'w1', label: '1 Main' },
          { value: 'w2', label: '2 Yard', disabled: true },
        ]}
      >
        <option value="">Choose…</option>
      </Select>,
    )
    const select = screen.getByRole('combobox', { name: 'Warehouse' }) as HTMLSelectElement
    expect(select.className).toBe(inputClass)
    expect([...select.options].map((o) => o.textContent)).toEqual(['Choose…', '1 Main', '2 Yard'])
    expect(select.options[2].disabled).toBe(true)
    fireEvent.change(select, { target: { value: 'w1' } })
    expect(onChange).toHaveBeenCalledWith('w1')
  })
})
