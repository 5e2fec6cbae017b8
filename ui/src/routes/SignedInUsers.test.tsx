import { QueryClientProvider } from '@tanstack/react-query'
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createQueryClient } from '../api/queryClient.ts'
import { json, session } from '../test/fixtures.ts'
import { SignedInUsers } from './SignedInUsers.tsx'

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

const USERS = [
  { user: 'u-1', user_name: 'demo@example.com', full_name: 'Demo User', sessions: 1, last_seen: 1_780_000_000_000, signed_in: 1_779_990_000_000 },
  { user: 'u-2', user_name: 'magazijn@example.com', full_name: 'Sem Bosman', sessions: 2, last_seen: 1_780_000_000_000, signed_in: 1_779_990_000_000 },
]

describe('Signed-in users', () => {
  it('ends another user’s sessions after asking, never offers to end one’s own', async () => {
    const calls: string[] = []
    let users = USERS
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        calls.push(`${init?.method ?? 'GET'} ${url}`)
        if (url === '/api/v1/sessions') return json(users)
        if (url === '/api/v1/sessions/u-2') {
          users = users.filter((u) => u.user !== 'u-2')
          return json({ user: 'u-2', ended: 2 })
        }
        return json({ error: { code: 'not_found', message: url } }, 404)
      }),
    )
    render(
      <QueryClientProvider client={createQueryClient()}>
        <SignedInUsers session={session()} />
      </QueryClientProvider>,
    )
    expect(await screen.findByText('Sem Bosman')).toBeTruthy()
    expect(screen.queryByRole('button', { name: 'End sessions of Demo User' })).toBeNull()
    fireEvent.click(screen.getByRole('button', { name: 'End sessions of Sem Bosman' }))
    expect(screen.getByText('Sign Sem Bosman out on every device now?')).toBeTruthy()
    fireEvent.click(screen.getAllByRole('button', { name: 'End sessions of Sem Bosman' }).at(-1)!)
    expect(await screen.findByText('2 session(s) of Sem Bosman ended.')).toBeTruthy()
    expect(calls).toContain('DELETE /api/v1/sessions/u-2')
    await waitFor(() => expect(screen.queryByText('Sem Bosman')).toBeNull())
  })
})
