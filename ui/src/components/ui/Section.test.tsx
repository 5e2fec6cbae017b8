import { cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { Section, sectionClass } from './Section.tsx'

afterEach(cleanup)

describe('Section', () => {
  it('is a region named by its heading, with the actions in the heading row', () => {
    render(
      <Section title="Running" titleId="running-title" actions={<button type="button">Close</button>} data-testid="card">
        <p>body</p>
      </Section>,
    )
    const region = screen.getByRole('region', { name: 'Running' })
    expect(region.getAttribute('aria-labelledby')).toBe('running-title')
    expect(region.className).toBe(sectionClass)
    expect(region.dataset.testid).toBe('card')
    expect(screen.getByRole('heading', { level: 2, name: 'Running' }).nextElementSibling?.textContent).toBe('Close')
  })

  it('makes its own heading id when none is given', () => {
    render(<Section title="Entries">x</Section>)
    expect(screen.getByRole('region', { name: 'Entries' })).toBeTruthy()
  })
})
