import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { hostChoices } from '../api/setup.ts'
import { json } from '../test/fixtures.ts'
import { FirstRunSetup } from './FirstRunSetup.tsx'

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
  sessionStorage.clear()
})

const HOSTS = [
  { name: 'Nederland', url: 'https://start.exactonline.nl' },
  { name: 'België / Belgique', url: 'https://start.exactonline.be' },
]

const STATUS = {
  needed: true as const,
  redirectUrl: 'https://esm.factory.local/callback',
  baseUrl: 'https://start.exactonline.be/',
  clientId: '',
  hosts: HOSTS,
  settingsFile: '/var/lib/stock-manager/settings.toml',
}

describe('hostChoices', () => {
  it("offers Exact's hosts, and the configured one when it is none of them", () => {
    expect(hostChoices({ baseUrl: 'https://start.exactonline.nl/', hosts: HOSTS })).toEqual(HOSTS)
    expect(hostChoices({ baseUrl: 'http://127.0.0.1:9000', hosts: HOSTS }).at(-1)).toEqual({
      name: 'http://127.0.0.1:9000',
      url: 'http://127.0.0.1:9000',
    })
  })
})

describe('FirstRunSetup', () => {
  it('shows the redirect URL to register and sends the entered settings with the code', async () => {
    const calls: unknown[] = []
    const assign = vi.fn()
    vi.stubGlobal('location', { ...window.location, assign })
    vi.stubGlobal(
      'fetch',
      vi.fn(async (_url: string, init?: RequestInit) => {
        calls.push(JSON.parse(String(init?.body)))
        return json({ authorizeUrl: 'https://start.exactonline.be/api/oauth2/auth?state=setup.x' })
      }),
    )
    render(<FirstRunSetup status={STATUS} />)
    expect(screen.getByTestId('setup-redirect').textContent).toBe('https://esm.factory.local/callback')
    expect((screen.getByLabelText('Exact Online country') as HTMLSelectElement).value).toBe('https://start.exactonline.be')
    expect(screen.getByText(/\/var\/lib\/stock-manager\/settings\.toml/)).toBeTruthy()
    fireEvent.change(screen.getByLabelText('Setup code'), { target: { value: 'ABCD-EFGH-JKLM' } })
    fireEvent.change(screen.getByLabelText('Client id'), { target: { value: ' 4c1d ' } })
    fireEvent.change(screen.getByLabelText('Client secret'), { target: { value: 's3cret' } })
    fireEvent.click(screen.getByRole('button', { name: 'Test with a sign-in at Exact Online' }))
    await waitFor(() => expect(assign).toHaveBeenCalledWith('https://start.exactonline.be/api/oauth2/auth?state=setup.x'))
    expect(calls).toEqual([{ setupCode: 'ABCD-EFGH-JKLM', clientId: ' 4c1d ', clientSecret: 's3cret', baseUrl: 'https://start.exactonline.be' }])
  })

  it("shows the server's refusal and stays on the form", async () => {
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json({ error: { code: 'forbidden', message: 'The setup code is wrong' } }, 403)),
    )
    render(<FirstRunSetup status={STATUS} />)
    fireEvent.change(screen.getByLabelText('Setup code'), { target: { value: 'x' } })
    fireEvent.change(screen.getByLabelText('Client id'), { target: { value: 'id' } })
    fireEvent.change(screen.getByLabelText('Client secret'), { target: { value: 's' } })
    fireEvent.click(screen.getByRole('button', { name: 'Test with a sign-in at Exact Online' }))
    expect((await screen.findByRole('alert')).textContent).toBe('The setup code is wrong')
    expect((screen.getByRole('button', { name: 'Test with a sign-in at Exact Online' }) as HTMLButtonElement).disabled).toBe(false)
  })

  it('says Exact cannot be reached and keeps every field as typed', async () => {
    const message =
      'Exact Online (https://start.exactonline.nl) cannot be reached from this server: check its internet connection and the country chosen, then test again'
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json({ error: { code: 'provider_unreachable', message } }, 503)),
    )
    render(<FirstRunSetup status={STATUS} />)
    fireEvent.change(screen.getByLabelText('Setup code'), { target: { value: 'ABCD-EFGH-JKLM' } })
    fireEvent.change(screen.getByLabelText('Exact Online country'), { target: { value: 'https://start.exactonline.nl' } })
    fireEvent.change(screen.getByLabelText('Client id'), { target: { value: '4c1d' } })
    fireEvent.change(screen.getByLabelText('Client secret'), { target: { value: 's3cret' } })
    fireEvent.click(screen.getByRole('button', { name: 'Test with a sign-in at Exact Online' }))
    expect((await screen.findByRole('alert')).textContent).toBe(message)
    expect((screen.getByLabelText('Setup code') as HTMLInputElement).value).toBe('ABCD-EFGH-JKLM')
    expect((screen.getByLabelText('Client id') as HTMLInputElement).value).toBe('4c1d')
    expect((screen.getByLabelText('Client secret') as HTMLInputElement).value).toBe('s3cret')
    expect((screen.getByLabelText('Exact Online country') as HTMLSelectElement).value).toBe('https://start.exactonline.nl')
  })

  it('comes back from a test at Exact with the client id and country as they were, never the secret', async () => {
    vi.stubGlobal('location', { ...window.location, assign: vi.fn() })
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json({ authorizeUrl: 'https://start.exactonline.nl/api/oauth2/auth?state=setup.x' })),
    )
    render(<FirstRunSetup status={STATUS} />)
    fireEvent.change(screen.getByLabelText('Setup code'), { target: { value: 'ABCD-EFGH-JKLM' } })
    fireEvent.change(screen.getByLabelText('Exact Online country'), { target: { value: 'https://start.exactonline.nl' } })
    fireEvent.change(screen.getByLabelText('Client id'), { target: { value: '4c1d' } })
    fireEvent.change(screen.getByLabelText('Client secret'), { target: { value: 's3cret' } })
    fireEvent.click(screen.getByRole('button', { name: 'Test with a sign-in at Exact Online' }))
    await waitFor(() => expect(sessionStorage.getItem('esm.setup.typed')).not.toBeNull())
    expect(sessionStorage.getItem('esm.setup.typed')).not.toContain('s3cret')
    cleanup()
    render(<FirstRunSetup status={STATUS} />)
    expect((screen.getByLabelText('Client id') as HTMLInputElement).value).toBe('4c1d')
    expect((screen.getByLabelText('Exact Online country') as HTMLSelectElement).value).toBe('https://start.exactonline.nl')
    expect((screen.getByLabelText('Client secret') as HTMLInputElement).value).toBe('')
  })
})
