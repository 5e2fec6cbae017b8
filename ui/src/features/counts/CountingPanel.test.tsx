import { QueryClientProvider } from '@tanstack/react-query'
import { cleanup, fireEvent, render, screen } from '@testing-library/react'
import { useState } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createQueryClient } from '../../api/queryClient.ts'
import { setLanguage } from '../../i18n/index.ts'
import { json } from '../../test/fixtures.ts'
import { CountingPanel, type Note } from './CountingPanel.tsx'
import type { CountLine, CountScope, CountSummary } from './logic.ts'
import { countLine, countScope, countSummary } from './testData.ts'

const ITEM = { ID: 'I1', Code: 'BOLT-M8', Description: 'Bolt M8', Unit: 'pc', IsFractionAllowedItem: true }
const LOCATIONS = [
  { ID: 'LOC-A', Code: 'A-01', Description: 'Rack A', Warehouse: 'w1', WarehouseCode: '1' },
  { ID: 'LOC-B', Code: 'B-10', Description: 'Rack B', Warehouse: 'w1', WarehouseCode: '1' },
  { ID: 'LOC-Z', Code: 'Z-99', Description: 'Elsewhere', Warehouse: 'w2', WarehouseCode: '2' },
]

const earlier: CountLine = countLine()

function count(scope: Partial<CountScope>, lines: CountLine[] = []): CountSummary {
  return countSummary({ scope: countScope(scope), lines })
}

type Answer = (body: Record<string, unknown>) => Response

/** The panel against a fetch that answers the local copy, the locations and each posted line in turn. */
function show(c: CountSummary, answers: Answer[], fresh?: CountSummary, item: Record<string, unknown> = ITEM) {
  const posted: Record<string, unknown>[] = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      if (url.startsWith('/api/v1/db/items')) return json([item])
      if (url.startsWith('/api/v1/tracking/numbers'))
        return json({ item: 'I1', tracking: 'serial', serials: [{ number: 'P-1' }, { number: 'P-2' }], batches: [] })
      if (url === '/api/v1/exact/live/storageLocations') return json(LOCATIONS)
      if (url === '/api/v1/counts/c1' && fresh) return json(fresh)
      if (url === '/api/v1/counts/c1/lines' && init?.method === 'POST') {
        const body = JSON.parse(String(init.body)) as Record<string, unknown>
        posted.push(body)
        return answers[posted.length - 1](body)
      }
      return json({ error: { code: 'not_found', message: url } }, 404)
    }),
  )
  function Panel() {
    const [note, setNote] = useState<Note | null>(null)
    return <CountingPanel count={c} note={note} onNote={setNote} />
  }
  render(
    <QueryClientProvider client={createQueryClient()}>
      <Panel />
    </QueryClientProvider>,
  )
  return posted
}

async function scan(code: string, label = 'Item') {
  const box = screen.getByLabelText(label) as HTMLInputElement
  fireEvent.change(box, { target: { value: code } })
  fireEvent.submit(box.closest('form')!)
}

async function countItem(quantity: string) {
  await scan('BOLT-M8')
  const qty = await screen.findByLabelText('Counted quantity')
  fireEvent.change(qty, { target: { value: quantity } })
  fireEvent.click(screen.getByRole('button', { name: 'Add to count' }))
}

const line = (over: Partial<CountLine>) => json({ ...earlier, countedBy: 'Els Bakker', ...over }, 200)

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
  setLanguage('en', false)
})

describe('counting a line', () => {
  it('asks which count stands when the item was counted there with another quantity; "Use" sends it again to replace', async () => {
    const conflict = () => json({ error: { code: 'count_conflict', message: 'BOLT-M8 at A-01 was counted as 98 by Jan de Vries: which count stands?' } }, 409)
    const posted = show(count({ kind: 'location', location: 'loc-a', locationCode: 'A-01' }, [earlier]), [conflict, () => line({ quantity: 97 })])
    await countItem('97')
    const question = await screen.findByTestId('count-conflict')
    expect(question.getAttribute('role')).toBe('alert')
    expect(question.textContent).toContain('BOLT-M8 at A-01 was counted as 98 by Jan de Vries: which count stands?')
    expect(screen.getByRole('button', { name: 'Keep 98' })).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Use 97' }))
    await screen.findByText('97 × BOLT-M8 at A-01 stands now.')
    expect(screen.getByText('97 × BOLT-M8 at A-01 stands now.').getAttribute('role')).toBe('status')
    // a location count's lines are at its own location: the body names none
    expect(posted).toEqual([
      { item: 'i1', quantity: 97 },
      { item: 'i1', quantity: 97, replace: true },
    ])
    expect(screen.queryByTestId('count-conflict')).toBeNull()
  })

  it('reads the count again for a line another counter added, and asks the server’s question in the user’s language', async () => {
    setLanguage('nl', false)
    // the server asks in the language the UI sends (Accept-Language)
    const conflict = () => json({ error: { code: 'count_conflict', message: 'BOLT-M8 op A-01 is geteld als 98 door Piet Jansen: welke telling geldt?' } }, 409)
    const scope = { kind: 'location' as const, location: 'loc-a', locationCode: 'A-01' }
    show(count(scope), [conflict], count(scope, [{ ...earlier, countedBy: 'Piet Jansen' }]))
    await scan('BOLT-M8', 'Artikel')
    fireEvent.change(await screen.findByLabelText('Geteld aantal'), { target: { value: '97' } })
    fireEvent.click(screen.getByRole('button', { name: 'Aan telling toevoegen' }))
    const question = await screen.findByTestId('count-conflict')
    expect(question.textContent).toContain('BOLT-M8 op A-01 is geteld als 98 door Piet Jansen: welke telling geldt?')
    expect(screen.getByRole('button', { name: '98 houden' })).toBeTruthy()
    expect(screen.getByRole('button', { name: '97 gebruiken' })).toBeTruthy()
    // the question is answered first: Add waits until the quantity changes
    expect((screen.getByRole('button', { name: 'Aan telling toevoegen' }) as HTMLButtonElement).disabled).toBe(true)
  })

  it('"Keep" leaves the earlier count as it is and sends nothing', async () => {
    const conflict = () => json({ error: { code: 'count_conflict', message: 'BOLT-M8 at A-01 was counted as 98 by Jan de Vries: which count stands?' } }, 409)
    const posted = show(count({ kind: 'location', location: 'loc-a', locationCode: 'A-01' }, [earlier]), [conflict])
    await countItem('97')
    fireEvent.click(await screen.findByRole('button', { name: 'Keep 98' }))
    await screen.findByText('The earlier count of 98 × BOLT-M8 stands.')
    expect(posted).toHaveLength(1)
    expect(screen.queryByLabelText('Counted quantity')).toBeNull()
  })

  it('takes a scanned location of the count’s warehouse as where the lines are, and refuses one of another', async () => {
    const posted = show(count({}), [() => json({ ...earlier, id: 'l2', location: 'loc-b', locationCode: 'B-10', quantity: 4 }, 201)])
    await screen.findByRole('option', { name: 'B-10 Rack B' })
    await scan('z-99')
    expect((await screen.findByRole('alert')).textContent).toBe('Z-99 is in warehouse 2; this count is of warehouse 1.')
    await scan('b-10')
    await screen.findByText('Counting at B-10.')
    expect((document.getElementById('count-location') as HTMLSelectElement).value).toBe('loc-b')
    await countItem('4')
    await screen.findByText('Counted 4 × BOLT-M8 at B-10.')
    expect(posted).toEqual([{ item: 'i1', quantity: 4, location: 'loc-b', locationCode: 'B-10' }])
  })

  it('asks for the location first in a warehouse that keeps them', async () => {
    const posted = show(count({}), [])
    await countItem('4')
    expect((await screen.findByRole('alert')).textContent).toBe('Choose or scan the location where you count.')
    expect(posted).toHaveLength(0)
  })

  it('reads "2,5" in Dutch as two and a half, and shows the server’s refusal as it said it', async () => {
    setLanguage('nl', false)
    const refused = () => json({ error: { code: 'bad_request', message: 'BOLT-M8 is not one of the items this count is of' } }, 400)
    const posted = show(count({ kind: 'items', usesLocations: false, items: ['i9'] }), [refused])
    await scan('BOLT-M8', 'Artikel')
    fireEvent.change(await screen.findByLabelText('Geteld aantal'), { target: { value: '2,5' } })
    fireEvent.click(screen.getByRole('button', { name: 'Aan telling toevoegen' }))
    expect((await screen.findByTestId('count-note')).textContent).toBe('BOLT-M8 is not one of the items this count is of')
    expect(screen.getByTestId('count-note').getAttribute('role')).toBe('alert')
    expect(posted).toEqual([{ item: 'i1', quantity: 2.5 }])
  })

  it('says what is wrong with the quantity before sending', async () => {
    const posted = show(count({ usesLocations: false }), [])
    await countItem('-3')
    expect((await screen.findByRole('alert')).textContent).toBe('A count cannot be below 0.')
    expect(posted).toHaveLength(0)
  })
})

describe('a serial item in a count', () => {
  it('asks one serial number per unit and sends them with the line', async () => {
    const posted = show(count({ kind: 'location', location: 'loc-a', locationCode: 'A-01' }), [(b) => line({ quantity: 2, ...b })], undefined, {
      ...ITEM,
      IsSerialItem: true,
    })
    await scan('BOLT-M8')
    fireEvent.change(await screen.findByLabelText('Counted quantity'), { target: { value: '2' } })
    const add = () => screen.getByRole('button', { name: 'Add to count' }) as HTMLButtonElement
    // not before the numbers are there
    expect(add().disabled).toBe(true)
    const serial = screen.getByLabelText('Serial number')
    for (const n of ['P-1', 'P-2']) {
      fireEvent.change(serial, { target: { value: n } })
      fireEvent.keyDown(serial, { key: 'Enter' })
    }
    expect(add().disabled).toBe(false)
    fireEvent.click(add())
    await screen.findByTestId('count-note')
    expect(posted).toEqual([{ item: 'i1', quantity: 2, SerialNumbers: [{ SerialNumber: 'P-1' }, { SerialNumber: 'P-2' }] }])
  })
})
