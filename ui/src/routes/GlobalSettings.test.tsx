import { QueryClientProvider } from '@tanstack/react-query'
import { cleanup, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createQueryClient } from '../api/queryClient.ts'
import { json, printer, session } from '../test/fixtures.ts'
import GlobalSettings, { toggled } from './GlobalSettings.tsx'
import { readSettings, toSave } from '../lib/orgSettings.ts'

const ACCOUNTS = {
  accounts: [
    { user: 'u-1', userName: 'jan@vandijk.nl', fullName: 'Jan de Vries', access: 'signInNeeded' },
    { user: 'u-2', userName: 'els@vandijk.nl', fullName: 'Els Bakker', access: 'ok' },
  ],
  syncAccount: null,
}

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

function renderSettings(preferences: Record<string, unknown> = {}, printers: unknown[] = [], administrator: 'none' | 'listed' = 'listed') {
  const s = session({ administrator, organizationDetails: { ...session().organizationDetails, preferences } })
  const saved: unknown[] = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      if (url === '/api/v1/auth/session') return json(s)
      if (url === '/api/v1/printers') return json(printers)
      if (url === '/api/v1/organization/accounts') return json(ACCOUNTS)
      if (url === '/api/v1/sessions') return json([])
      if (url === '/api/v1/exact/live/warehouses') {
        return json([
          { ID: 'w1', Code: '1', Description: 'Main' },
          { ID: 'w3', Code: '3', Description: 'Scrap' },
          { ID: 'w13', Code: '13', Description: 'Dispatch' },
        ])
      }
      if (url === '/api/v1/updateOrganizationPreferences') {
        const body = JSON.parse(String(init?.body)) as { preferences: Record<string, unknown> }
        saved.push(body)
        return json({ ...s.organizationDetails, preferences: body.preferences })
      }
      return json({ error: { code: 'not_found', message: url } }, 404)
    }),
  )
  render(
    <QueryClientProvider client={createQueryClient()}>
      <GlobalSettings />
    </QueryClientProvider>,
  )
  return saved
}

describe('GlobalSettings sync account', () => {
  it('lists the signed-in accounts after "Automatic", marking one that must sign in again', async () => {
    renderSettings()
    const select = (await screen.findByLabelText('Sync account')) as HTMLSelectElement
    await screen.findByRole('option', { name: 'Els Bakker (els@vandijk.nl)' })
    expect([...select.options].map((o) => [o.value, o.text])).toEqual([
      ['', 'Automatic (any account that works)'],
      ['u-1', 'Jan de Vries (jan@vandijk.nl): sign-in needed'],
      ['u-2', 'Els Bakker (els@vandijk.nl)'],
    ])
    expect(select.value).toBe('')
    expect(screen.getByText(/scheduled sync, live reads and labels use this account/)).toBeTruthy()
  })

  it('saves the choice as sync_account with the other preferences', async () => {
    const saved = renderSettings({ weekends_disabled: true, other_screen_key: 7 })
    const select = (await screen.findByLabelText('Sync account')) as HTMLSelectElement
    await screen.findByRole('option', { name: 'Els Bakker (els@vandijk.nl)' })
    fireEvent.change(select, { target: { value: 'u-2' } })
    fireEvent.click(screen.getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(saved).toHaveLength(1))
    expect(saved[0]).toMatchObject({ uuid: 'org-1', preferences: { sync_account: 'u-2', weekends_disabled: true, other_screen_key: 7 } })
    await screen.findByText('Saved.')
  })

  it('reads automatic when nothing or no text is saved', () => {
    expect(readSettings({}).sync_account).toBe('')
    expect(readSettings({ sync_account: null }).sync_account).toBe('')
    expect(readSettings({ sync_account: 'u-1' }).sync_account).toBe('u-1')
  })
})

describe('GlobalSettings sync interval', () => {
  it("starts from the server's interval while the organization has none of its own", () => {
    expect(readSettings({}, 30).sync_interval_minutes).toBe(30)
    expect(readSettings({ sync_interval_minutes: 5 }, 30).sync_interval_minutes).toBe(5)
  })

  it("leaves the interval unset when it was never set and stays the server's", () => {
    const form = readSettings({ other: 1 }, 30)
    expect(toSave({ other: 1 }, form, 30)).not.toHaveProperty('sync_interval_minutes')
    expect(toSave({ other: 1 }, form, 30)).toHaveProperty('other', 1)
    expect(toSave({ other: 1 }, { ...form, sync_interval_minutes: 10 }, 30)).toHaveProperty('sync_interval_minutes', 10)
    // once saved, it stays the organization's, even at the server's figure
    expect(toSave({ sync_interval_minutes: 10 }, { ...form, sync_interval_minutes: 30 }, 30)).toHaveProperty('sync_interval_minutes', 30)
  })
})

describe('GlobalSettings labels', () => {
  it('saves the label types, default printer and copies under the keys the label buttons read', async () => {
    const saved = renderSettings({}, [printer({ name: 'Floor' })])
    await screen.findByRole('option', { name: 'Floor (idle)' })
    fireEvent.change(screen.getByLabelText('Default printer'), { target: { value: 'Floor' } })
    fireEvent.change(screen.getByLabelText('Label type for shop orders'), { target: { value: 'cnc-new' } })
    fireEvent.change(screen.getByLabelText('Label type for single items'), { target: { value: 'electrical-x4' } })
    fireEvent.change(screen.getByLabelText('Label type for goods receipts'), { target: { value: 'electrical-NEW' } })
    fireEvent.change(screen.getByLabelText('Copies per label'), { target: { value: '4' } })
    fireEvent.click(screen.getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(saved).toHaveLength(1))
    const { preferences } = saved[0] as { preferences: Record<string, unknown> }
    expect(readSettings(preferences)).toMatchObject({
      default_printer: 'Floor',
      label_type_shop_order: 'cnc-new',
      label_type_item: 'electrical-x4',
      label_type_receipt: 'electrical-NEW',
      label_copies: 4,
    })
  })
})

describe('GlobalSettings for a user who is not an administrator', () => {
  it('shows the settings read-only, says who may change them and offers no Save', async () => {
    renderSettings({ sync_interval_minutes: 30 }, [], 'none')
    expect(await screen.findByTestId('admin-notice')).toBeTruthy()
    expect(screen.getByText(/Only an administrator can change these settings/)).toBeTruthy()
    const interval = screen.getByDisplayValue('30') as HTMLInputElement
    expect(interval.closest('fieldset')?.disabled).toBe(true)
    expect(screen.queryByRole('button', { name: 'Save' })).toBeNull()
    expect(screen.queryByTestId('signed-in-users')).toBeNull()
  })

  it('lists the signed-in users for an administrator', async () => {
    renderSettings({}, [], 'listed')
    expect(await screen.findByTestId('signed-in-users')).toBeTruthy()
    expect(screen.queryByTestId('admin-notice')).toBeNull()
  })
})

describe('GlobalSettings warehouses left off labels', () => {
  it('reads none for a new organization and only text codes otherwise', () => {
    expect(readSettings({}).label_skipped_warehouses).toEqual([])
    expect(readSettings({ label_skipped_warehouses: ['3', 7, null] }).label_skipped_warehouses).toEqual(['3'])
    expect(readSettings({ label_skipped_warehouses: '3' }).label_skipped_warehouses).toEqual([])
  })

  it('ticks a code in once and out again, keeping the order', () => {
    expect(toggled(['3'], '13', true)).toEqual(['3', '13'])
    expect(toggled(['3', '13'], '3', true)).toEqual(['3', '13'])
    expect(toggled(['3', '13'], '3', false)).toEqual(['13'])
  })

  it("lists the organization's warehouses, none ending in 3 ticked by itself, and saves the ticked codes", async () => {
    const saved = renderSettings({ label_skipped_warehouses: ['9'] })
    const scrap = (await screen.findByLabelText('3 Scrap')) as HTMLInputElement
    expect(scrap.checked).toBe(false)
    expect(((await screen.findByLabelText('13 Dispatch')) as HTMLInputElement).checked).toBe(false)
    const gone = screen.getByLabelText('9 (no longer in Exact Online)') as HTMLInputElement
    expect(gone.checked).toBe(true)
    fireEvent.click(scrap)
    fireEvent.click(gone)
    fireEvent.click(screen.getByRole('button', { name: 'Save' }))
    await waitFor(() => expect(saved).toHaveLength(1))
    expect(saved[0]).toMatchObject({ preferences: { label_skipped_warehouses: ['3'] } })
  })
})
