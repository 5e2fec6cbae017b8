import { cleanup, fireEvent, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { RootErrorBoundary } from './RootErrorBoundary.tsx'

function Broken(): never {
  throw new Error('header broke')
}

afterEach(() => {
  cleanup()
  vi.restoreAllMocks()
})

describe('RootErrorBoundary', () => {
  it('shows the catalogue message and a way back instead of a blank page', () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const assign = vi.fn()
    vi.stubGlobal('location', { ...window.location, assign })
    render(
      <RootErrorBoundary>
        <Broken />
      </RootErrorBoundary>,
    )
    screen.getByRole('heading', { name: 'An error has occurred' })
    screen.getByText(/UNKNOWN ERROR OCCURRED/)
    fireEvent.click(screen.getByRole('button', { name: 'Continue' }))
    expect(assign).toHaveBeenCalledWith('/')
    vi.unstubAllGlobals()
  })

  it('renders its children when nothing fails', () => {
    render(
      <RootErrorBoundary>
        <p>fine</p>
      </RootErrorBoundary>,
    )
    screen.getByText('fine')
  })
})
