import { QueryClientProvider } from '@tanstack/react-query'
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import { MemoryRouter, Route, Routes, useLocation } from 'react-router'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createQueryClient } from '../../api/queryClient.ts'
import { json, session } from '../../test/fixtures.ts'
import Counts from './Counts.tsx'
import type { CountSummary } from './logic.ts'
import { countScope, countSummary } from './testData.ts'

const S = session()
const W1 = { ID: 'W1', Code: '1', Description: 'Main', UseStorageLocations: 1 }
const W2 = { ID: 'W2', Code: '2', Description: 'Yard', UseStorageLocations: 0 }
const LOC = { ID: 'LOC-A', Code: 'A-01', Description: 'Rack A', Warehouse: 'w1', WarehouseCode: '1' }

/** A count of warehouse 2, which has no storage locations. */
function summary(over: Partial<CountSummary>): CountSummary {
  return countSummary({ scope: countScope({ warehouse: 'w2', warehouseCode: '2', usesLocations: false }), lineCount: 0, ...over })
}

const STARTED = summary({
  id: 'new-1',
  description: 'Rack A, Friday',
  scope: { kind: 'location', warehouse: 'w1', warehouseCode: '1', usesLocations: true, location: 'loc-a', locationCode: 'A-01' },
  lines: [],
})

function serve(counts: CountSummary[]) {
  const started: unknown[] = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      if (url === '/api/v1/auth/session') return json(S)
      if (url === '/api/v1/counts' && init?.method === 'POST') {
        started.push(JSON.parse(String(init.body)))
        return json(STARTED, 201)
      }
      if (url === '/api/v1/counts') return json({ counts })
      if (url === '/api/v1/counts/new-1') return json(STARTED)
      if (url.startsWith('/api/v1/counts/new-1/review'))
        return json({ total: 0, counted: 0, notCounted: 0, differences: 0, valueDifference: 0, matching: 0, offset: 0, rows: [] })
      if (url === '/api/v1/exact/live/warehouses') return json([W2, W1])
      if (url === '/api/v1/exact/live/storageLocations') return json([LOC])
      return json({ error: { code: 'not_found', message: 'No such count: it was removed, or it is another organization’s' } }, 404)
    }),
  )
  return started
}

function Where() {
  const l = useLocation()
  return <p data-testid="where">{l.pathname + l.search}</p>
}

function show(path: string) {
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={[path]}>
        <Routes>
          <Route path="/counts" element={<Counts />} />
        </Routes>
        <Where />
      </MemoryRouter>
    </QueryClientProvider>,
  )
}

beforeEach(() => {
  vi.stubGlobal('matchMedia', (query: string) => ({ matches: true, media: query, addEventListener: () => {}, removeEventListener: () => {} }))
})

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

describe('the Counts screen', () => {
  it('lists the open counts first, then the sent ones, with what, who, lines and Exact’s refusal', async () => {
    serve([
      summary({ id: 'a', status: 'processed', lineCount: 12, mode: 'process' }),
      summary({ id: 'b', status: 'refused', error: 'Artikel geblokkeerd', lineCount: 3, description: 'Yard, Monday' }),
      summary({
        id: 'c',
        status: 'counting',
        lineCount: 1,
        scope: { kind: 'itemGroup', warehouse: 'w1', warehouseCode: '1', usesLocations: true, itemGroup: 'g', itemGroupCode: 'PLAAT' },
      }),
    ])
    show(`/counts?division=${S.division}`)
    const open = within(await screen.findByRole('region', { name: 'Open counts' }))
    const items = open.getAllByTestId('count-item')
    expect(items.map((i) => within(i).getByRole('link').textContent)).toEqual(['Warehouse 2', 'Item group PLAAT in warehouse 1'])
    expect(items[0].textContent).toContain('Yard, Monday')
    expect(items[0].textContent).toContain('Refused')
    expect(items[0].textContent).toContain('Exact Online: Artikel geblokkeerd')
    expect(items[0].textContent).toMatch(/Started by Els Bakker, .* · 3 lines/)
    expect(items[1].textContent).toContain('1 line')
    const sent = within(screen.getByRole('region', { name: 'Sent to Exact Online' }))
    expect(sent.getByRole('link').getAttribute('href')).toBe(`/counts?division=${S.division}&id=a`)
    expect(sent.getByText('Processed')).toBeTruthy()
  })

  it('starts a count of a location (offered only in a warehouse with locations) and opens it, its id in the address', async () => {
    const started = serve([])
    show(`/counts?division=${S.division}`)
    fireEvent.click(await screen.findByRole('button', { name: 'New count' }))
    const warehouse = screen.getByLabelText('Warehouse') as HTMLSelectElement
    await screen.findByRole('option', { name: '1 Main' })
    // the yard keeps no storage locations: not offered for a location count
    expect(screen.queryByRole('option', { name: '2 Yard' })).toBeNull()
    fireEvent.click(screen.getByRole('button', { name: 'Start count' }))
    expect(screen.getByRole('alert').textContent).toBe('Choose the warehouse to count in.')
    fireEvent.change(warehouse, { target: { value: 'w1' } })
    fireEvent.change(await screen.findByLabelText('Location'), { target: { value: 'loc-a' } })
    fireEvent.change(screen.getByLabelText('Description (optional)'), { target: { value: 'Rack A, Friday' } })
    fireEvent.click(screen.getByRole('button', { name: 'Start count' }))
    await screen.findByRole('heading', { name: 'Location A-01 in warehouse 1' })
    expect(started).toEqual([
      { kind: 'location', warehouse: 'w1', warehouseCode: '1', usesLocations: true, description: 'Rack A, Friday', location: 'loc-a', locationCode: 'A-01' },
    ])
    expect(screen.getByTestId('where').textContent).toBe(`/counts?division=${S.division}&id=new-1`)
    // a new count is counted at once: the panel is there
    expect(screen.getByRole('region', { name: 'Count' })).toBeTruthy()
    expect(screen.getByText('Everything is counted at A-01.')).toBeTruthy()
  })

  it('opens the count in the address (a reload), and says so when it is gone', async () => {
    serve([])
    show(`/counts?division=${S.division}&id=new-1`)
    await screen.findByRole('heading', { name: 'Location A-01 in warehouse 1' })
    expect(screen.getByTestId('count-status').textContent).toContain('Being counted: 0 lines so far.')
    cleanup()
    show(`/counts?division=${S.division}&id=gone`)
    await waitFor(() => expect(screen.getByRole('alert').textContent).toBe('No such count: it was removed, or it is another organization’s'))
    expect(screen.getByRole('link', { name: '← All counts' })).toBeTruthy()
  })
})
