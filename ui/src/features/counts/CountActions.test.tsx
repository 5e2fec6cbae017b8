import { QueryClientProvider } from '@tanstack/react-query'
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Session } from '../../api/auth.ts'
import { createQueryClient } from '../../api/queryClient.ts'
import { countSessionKeys } from '../../api/queries.ts'
import { json, session } from '../../test/fixtures.ts'
import { CountActions } from './CountActions.tsx'
import type { CountSummary, ReviewPage } from './logic.ts'
import { countScope, countSummary } from './testData.ts'

const COUNT: CountSummary = countSummary({
  description: 'Rack A, Friday',
  scope: countScope({ kind: 'location', location: 'loc-a', locationCode: 'A-01' }),
  lineCount: 2,
  lines: [],
})

const TOTALS: ReviewPage = { total: 5, counted: 2, notCounted: 3, differences: 1, valueDifference: 9, matching: 5, offset: 0, rows: [] }

function show(s: Session, c: CountSummary = COUNT) {
  const calls: string[] = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      calls.push(`${init?.method ?? 'GET'} ${url}`)
      if (url === '/api/v1/counts/c1/draft') return json({ ...c, status: 'sending', mode: 'draft' }, 202)
      if (url === '/api/v1/counts/c1/process') return json({ ...c, status: 'sending', mode: 'process' }, 202)
      if (url === '/api/v1/counts/c1/reopen') return json({ ...c, status: 'counting', error: null }, 200)
      if (url === '/api/v1/counts/c1' && init?.method === 'DELETE') return json(null, 204)
      if (url === '/api/v1/counts') return json({ counts: [] })
      return json({ error: { code: 'not_found', message: url } }, 404)
    }),
  )
  const client = createQueryClient()
  const onRemoved = vi.fn()
  render(
    <QueryClientProvider client={client}>
      <CountActions count={c} session={s} totals={TOTALS} onRemoved={onRemoved} />
    </QueryClientProvider>,
  )
  return { calls, client, onRemoved }
}

const answer = (name: string) => fireEvent.click(within(screen.getByRole('dialog')).getByRole('button', { name }))

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

describe('sending a count', () => {
  it('lets anyone send a draft, after saying what Exact leaves as it is', async () => {
    const { calls, client } = show(session({ administrator: 'none' }))
    fireEvent.click(screen.getByRole('button', { name: 'Send as draft to Exact Online' }))
    expect(screen.getByRole('dialog').textContent).toContain('Send this count of 2 lines to Exact Online as a draft?')
    expect(screen.getByRole('dialog').textContent).toContain('3 items expected here were not counted: their stock stays as it is.')
    answer('Send as draft')
    await waitFor(() => expect(calls).toContain('POST /api/v1/counts/c1/draft'))
    await waitFor(() => expect(client.getQueryData<CountSummary>(countSessionKeys.one('c1'))?.status).toBe('sending'))
  })

  it('keeps Process for administrators: others see it disabled, with who may and how', () => {
    show(session({ administrator: 'none', adminPasswordSet: false }))
    expect((screen.getByRole('button', { name: 'Process in Exact Online' }) as HTMLButtonElement).disabled).toBe(true)
    const notice = screen.getByTestId('admin-notice')
    expect(notice.textContent).toContain('Only an administrator can process a count in Exact Online.')
    expect(notice.textContent).toContain('The administrators are the users this installation lists')
  })

  it('offers the admin password inline where one is set', () => {
    show(session({ administrator: 'none', adminPasswordSet: true }))
    expect(within(screen.getByTestId('admin-notice')).getByLabelText('Admin password')).toBeTruthy()
  })

  it('lets an administrator process it, after asking', async () => {
    const { calls } = show(session({ administrator: 'listed' }))
    expect(screen.queryByTestId('admin-notice')).toBeNull()
    fireEvent.click(screen.getByRole('button', { name: 'Process in Exact Online' }))
    expect(screen.getByRole('dialog').textContent).toContain('The counted quantities become the stock.')
    answer('Cancel')
    expect(calls).toEqual([])
    fireEvent.click(screen.getByRole('button', { name: 'Process in Exact Online' }))
    answer('Process')
    await waitFor(() => expect(calls).toContain('POST /api/v1/counts/c1/process'))
    expect(calls).not.toContain('POST /api/v1/counts/c1/draft')
  })

  it('sends nothing while nothing is counted', () => {
    show(session(), { ...COUNT, lineCount: 0 })
    expect((screen.getByRole('button', { name: 'Send as draft to Exact Online' }) as HTMLButtonElement).disabled).toBe(true)
    expect(screen.getByText('Count a line first: an empty count cannot be sent.')).toBeTruthy()
  })
})

describe('a refused count', () => {
  it('can be reopened or removed, not sent', async () => {
    const { calls, onRemoved } = show(session(), { ...COUNT, status: 'refused', error: 'Artikel geblokkeerd', mode: 'process' })
    expect(screen.queryByRole('button', { name: 'Send as draft to Exact Online' })).toBeNull()
    fireEvent.click(screen.getByRole('button', { name: 'Reopen' }))
    await waitFor(() => expect(calls).toContain('POST /api/v1/counts/c1/reopen'))
    fireEvent.click(screen.getByRole('button', { name: 'Remove count' }))
    expect(screen.getByRole('dialog').textContent).toContain('Remove this count and its 2 lines?')
    answer('Remove')
    await waitFor(() => expect(onRemoved).toHaveBeenCalled())
    expect(calls).toContain('DELETE /api/v1/counts/c1')
  })

  it('has no actions once it is a draft or processed in Exact Online', () => {
    show(session(), { ...COUNT, status: 'processed', mode: 'process' })
    expect(screen.queryByRole('button')).toBeNull()
  })
})
