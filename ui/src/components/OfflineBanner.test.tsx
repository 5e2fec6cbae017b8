import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { act, cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { api } from '../api/client.ts'
import { setLanguage } from '../i18n/index.ts'
import { json } from '../test/fixtures.ts'
import { OfflineBanner } from './OfflineBanner.tsx'

const down = (async () => {
  throw new TypeError('Failed to fetch')
}) as typeof fetch
const up = (async () => json({ status: 'ok' })) as typeof fetch

function show() {
  const client = new QueryClient({ defaultOptions: { queries: { retry: false } } })
  render(
    <QueryClientProvider client={client}>
      <OfflineBanner />
    </QueryClientProvider>,
  )
}

afterEach(async () => {
  cleanup()
  await api('/health', { fetchImpl: up })
  setLanguage('en')
})

describe('OfflineBanner', () => {
  it('shows while the server cannot be reached and goes when it answers again', async () => {
    show()
    expect(screen.queryByTestId('offline')).toBeNull()
    await act(() => api('/x', { fetchImpl: down }).catch(() => null))
    expect(screen.getByTestId('offline').textContent).toBe("Can't reach Stock Manager — working offline")
    await act(() => api('/x', { fetchImpl: up }))
    expect(screen.queryByTestId('offline')).toBeNull()
  })

  it('speaks Dutch to a Dutch user', async () => {
    setLanguage('nl')
    show()
    await act(() => api('/x', { fetchImpl: down }).catch(() => null))
    expect(screen.getByTestId('offline').textContent).toBe('Stock Manager is niet bereikbaar — offline aan het werk')
  })
})
