import { QueryClientProvider } from '@tanstack/react-query'
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createQueryClient } from '../api/queryClient.ts'
import { json, printer, session } from '../test/fixtures.ts'
import { NetworkPrinters } from './NetworkPrinters.tsx'

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

const PRINTERS = [
  printer({ name: 'Hall', uri: 'ipp://10.0.0.9:631/ipp/print' }),
  printer({ name: 'Zebra dock', uri: 'ipp://192.168.1.20:631/ipp/print', source: 'discovered', accepted: false, state: 'discovered', accepting_jobs: false }),
  printer({ name: 'Brother desk', uri: 'ipp://192.168.1.21:631/ipp/print', source: 'discovered', accepted: true, label_types: ['receipts', '6'] }),
]

function renderPrinters(administrator: 'none' | 'listed' | 'password', tier: 'full' | 'importData' = 'full', adminPasswordSet = true) {
  const calls: { url: string; body: unknown }[] = []
  let printers = PRINTERS.map((p) => ({ ...p }))
  const s = session({ administrator, tier, adminPasswordSet })
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      const body = init?.body ? JSON.parse(String(init.body)) : undefined
      calls.push({ url, body })
      if (url === '/api/v1/printers') return json(printers)
      if (url === '/api/v1/auth/reauth') return json({ ...s, administrator: 'password', importDataUntil: Date.now() + 900_000 })
      if (url === '/api/v1/printers/accept') {
        printers = printers.map((p) => (p.name === body.name ? { ...p, accepted: true, state: 'idle' } : p))
        return json(printers.find((p) => p.name === body.name))
      }
      return json({ error: { code: 'not_found', message: url } }, 404)
    }),
  )
  render(
    <QueryClientProvider client={createQueryClient()}>
      <NetworkPrinters session={s} />
    </QueryClientProvider>,
  )
  return calls
}

describe('NetworkPrinters', () => {
  it('lists only discovered printers, waiting, and asks for the administrator before accepting', async () => {
    const calls = renderPrinters('none')
    expect(await screen.findByText('Zebra dock')).toBeTruthy()
    expect(screen.queryByText('Hall')).toBeNull()
    expect(screen.getByText('Waiting for an administrator to accept it')).toBeTruthy()
    expect(screen.queryByRole('button', { name: 'Accept Zebra dock' })).toBeNull()
    expect(screen.getByText(/Only an administrator can change which network printers print/)).toBeTruthy()
    // the admin password is asked for inline; once confirmed, the printer can be accepted
    fireEvent.change(screen.getByLabelText('Admin password'), { target: { value: 'letmein' } })
    fireEvent.click(screen.getByRole('button', { name: 'Confirm as administrator' }))
    await waitFor(() => expect(calls.find((c) => c.url === '/api/v1/auth/reauth')?.body).toEqual({ password: 'letmein' }))
  })

  it('names who may accept printers where no admin password is set', async () => {
    renderPrinters('none', 'full', false)
    expect(await screen.findByText(/The administrators are the users this installation lists/)).toBeTruthy()
    expect(screen.queryByLabelText('Admin password')).toBeNull()
  })

  it('accepts a printer once the administrator is confirmed', async () => {
    const calls = renderPrinters('listed')
    fireEvent.click(await screen.findByRole('button', { name: 'Accept Zebra dock' }))
    await waitFor(() => expect(screen.getByText('Accepted: receives labels')).toBeTruthy())
    expect(calls.find((c) => c.url === '/api/v1/printers/accept')?.body).toEqual({ name: 'Zebra dock' })
    expect(screen.getByRole('button', { name: 'Stop printing on Zebra dock' })).toBeTruthy()
  })

  it('lists them for a session with the import tier too (full access and more)', async () => {
    renderPrinters('password', 'importData')
    expect(await screen.findByRole('button', { name: 'Accept Zebra dock' })).toBeTruthy()
  })

  it('names the label types a printer holds, never by number', async () => {
    renderPrinters('listed')
    await screen.findByText('Brother desk')
    expect(screen.getByText('Labels: Goods receipt (76.2 × 44.45 mm), CNC (100 × 23 mm)')).toBeTruthy()
    expect(screen.getByText('Labels: any type')).toBeTruthy()
  })
})
