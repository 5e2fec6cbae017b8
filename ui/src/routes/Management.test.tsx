import { QueryClientProvider } from '@tanstack/react-query'
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createQueryClient } from '../api/queryClient.ts'
import { json, outboxEntry, session } from '../test/fixtures.ts'
import { OutboxPanel } from './Management.tsx'

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

describe('Outbox panel', () => {
  it('discards every refused write at once, after asking', async () => {
    const calls: string[] = []
    let entries = [outboxEntry({ id: 9, state: 'failed' }), outboxEntry({ id: 8, state: 'failed' }), outboxEntry({ id: 7, state: 'pending' })]
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        calls.push(`${init?.method ?? 'GET'} ${url} ${init?.body ?? ''}`.trim())
        if (url === '/api/v1/auth/session') return json(session())
        if (url === '/api/v1/outbox') {
          const failed = entries.filter((e) => e.state === 'failed').length
          return json({ pending: entries.length - failed, failed, entries })
        }
        if (url === '/api/v1/outbox/discard') {
          entries = entries.filter((e) => e.state !== 'failed')
          return json({ discarded: 2 })
        }
        return json({ error: { code: 'not_found', message: url } }, 404)
      }),
    )
    render(
      <QueryClientProvider client={createQueryClient()}>
        <OutboxPanel />
      </QueryClientProvider>,
    )
    fireEvent.click(await screen.findByRole('button', { name: 'Discard all refused (2)' }))
    expect(
      screen.getByText('Discard all 2 refused write(s)? They will not reach Exact Online. Only your own go, unless you are an administrator.'),
    ).toBeTruthy()
    expect(calls.some((c) => c.startsWith('POST'))).toBe(false)
    fireEvent.click(screen.getByRole('button', { name: 'Yes' }))
    expect(await screen.findByText('2 refused write(s) discarded.')).toBeTruthy()
    expect(calls).toContain('POST /api/v1/outbox/discard {"state":"failed"}')
    await waitFor(() => expect(screen.queryByRole('button', { name: /Discard all refused/ })).toBeNull())
  })
})
