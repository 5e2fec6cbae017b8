import { QueryClientProvider } from '@tanstack/react-query'
import { cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { OutboxEntry } from '../api/outbox.ts'
import { createQueryClient } from '../api/queryClient.ts'
import { sendWrite } from '../api/writes.ts'
import { json, outboxEntry } from '../test/fixtures.ts'
import { EntryMessage } from './EntryMessage.tsx'
import { WriteStatus } from './WriteStatus.tsx'

const feedback = vi.hoisted(() => ({ signal: vi.fn() }))
vi.mock('../lib/feedback.ts', () => feedback)

const WHY = 'Waiting for Exact Online: could not connect'

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

describe('WriteStatus', () => {
  it('shows a write the server queued (202) as queued, with why it waits, not as a failure', async () => {
    const waiting = outboxEntry({ id: 7, state: 'pending', error: WHY })
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) => (url.startsWith('/api/v1/outbox/') ? json(waiting) : json({ state: 'pending', error: null, entries: [waiting] }, 202))),
    )
    const outcome = await sendWrite('/exact/createGoodsReceipt', 'POST', { a: 1 })
    render(
      <QueryClientProvider client={createQueryClient()}>
        <WriteStatus outcome={outcome} what="PO 1234" />
      </QueryClientProvider>,
    )
    const status = screen.getByTestId('write-status')
    expect(status.getAttribute('data-state')).toBe('pending')
    expect(status.getAttribute('role')).toBe('status')
    expect(status.textContent).toContain('Queued: sent when Exact Online answers')
    expect(screen.getByTestId('write-waiting').textContent).toBe(WHY)
    expect(screen.queryByRole('alert')).toBeNull()
    expect(status.textContent).not.toContain('Refused')
  })

  it('shows a refusal (422) with Exact’s message as an alert', async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json({ state: 'failed', error: 'Item is blocked', entries: [] }, 422)),
    )
    const outcome = await sendWrite('/exact/createGoodsReceipt', 'POST', {})
    render(
      <QueryClientProvider client={createQueryClient()}>
        <WriteStatus outcome={outcome} what="PO 1234" />
      </QueryClientProvider>,
    )
    expect(screen.getByRole('alert').textContent).toContain('Refused')
    expect(screen.getByRole('alert').textContent).toContain('Item is blocked')
  })
})

describe('WriteStatus as a handheld card', () => {
  it('follows the entry to delivered with the whole sentence, and sounds once when Exact decides', async () => {
    feedback.signal.mockClear()
    let state: OutboxEntry['state'] = 'pending'
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string) =>
        url.startsWith('/api/v1/outbox/')
          ? json(outboxEntry({ id: 9, state }))
          : json({ state: 'pending', error: null, entries: [outboxEntry({ id: 9 })] }, 202),
      ),
    )
    const outcome = await sendWrite('/exact/createMaterialIssue', 'POST', {})
    render(
      <QueryClientProvider client={createQueryClient()}>
        <WriteStatus outcome={outcome} look="card" />
      </QueryClientProvider>,
    )
    const status = screen.getByTestId('write-status')
    expect(status.textContent).toContain('Saved: waiting to be sent to Exact Online')
    expect(feedback.signal).not.toHaveBeenCalled()
    state = 'delivered'
    await vi.waitFor(() => expect(screen.getByTestId('write-status').getAttribute('data-state')).toBe('delivered'), { timeout: 3_000 })
    expect(screen.getByTestId('write-status').textContent).toContain('Booked in Exact Online')
    expect(feedback.signal).toHaveBeenCalledTimes(1)
    expect(feedback.signal).toHaveBeenCalledWith(true)
  })

  it('makes no sound for a refusal the first answer already gave', async () => {
    feedback.signal.mockClear()
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json({ state: 'failed', error: 'Item is blocked', entries: [] }, 422)),
    )
    const outcome = await sendWrite('/exact/createMaterialIssue', 'POST', {})
    render(
      <QueryClientProvider client={createQueryClient()}>
        <WriteStatus outcome={outcome} look="card" />
      </QueryClientProvider>,
    )
    expect(screen.getByRole('alert').textContent).toBe('Refused by Exact Online: Item is blocked')
    expect(feedback.signal).not.toHaveBeenCalled()
  })
})

describe('EntryMessage (outbox list)', () => {
  it('gives a waiting entry’s error as the reason it waits and a failed one’s as the refusal', () => {
    render(<EntryMessage entry={{ state: 'pending', error: 'Waiting for Jan de Vries to sign in with Exact Online again' }} />)
    const waiting = screen.getByTestId('entry-waiting')
    expect(waiting.textContent).toBe('Waiting for Jan de Vries to sign in with Exact Online again')
    expect(waiting.className).not.toContain('red')
    cleanup()
    render(<EntryMessage entry={{ state: 'failed', error: 'Datum ongeldig' }} />)
    expect(screen.getByText('Datum ongeldig').className).toContain('red')
  })
})
