import { QueryClientProvider } from '@tanstack/react-query'
import { cleanup, fireEvent, render, screen } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createQueryClient } from '../api/queryClient.ts'
import { json } from '../test/fixtures.ts'
import { ExternalLink } from './ExternalLink.tsx'

const writeText = vi.fn(async (_text: string) => {})

beforeEach(() => {
  writeText.mockClear()
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => json({}, 401)),
  )
  Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true })
})

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

const renderIn = (node: React.ReactNode) => render(<QueryClientProvider client={createQueryClient()}>{node}</QueryClientProvider>)

describe('ExternalLink copy button', () => {
  it('copies the code the link shows, not the address', async () => {
    renderIn(
      <ExternalLink page="itemCard" division={123} id="abc" code="44-100434">
        44-100434
      </ExternalLink>,
    )
    fireEvent.click(screen.getByRole('button', { name: 'Copy 44-100434' }))
    expect(writeText).toHaveBeenCalledWith('44-100434')
    expect(await screen.findByRole('status')).toHaveProperty('textContent', '44-100434 copied')
  })

  it('copies an order number given as a number', () => {
    renderIn(<ExternalLink page="shopOrder" division={123} id="abc" code={24005} />)
    fireEvent.click(screen.getByRole('button', { name: 'Copy 24005' }))
    expect(writeText).toHaveBeenCalledWith('24005')
  })

  it('copies the address where the link shows no code', () => {
    renderIn(<ExternalLink page="inventoryTransactions" division={123} id="abc" />)
    fireEvent.click(screen.getByRole('button', { name: 'Copy link: Inventory transactions' }))
    expect(writeText).toHaveBeenCalledTimes(1)
    expect(writeText.mock.calls[0][0]).toMatch(/^https:\/\//)
  })
})
