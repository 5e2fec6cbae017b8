import { cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { setLanguage } from '../../i18n/index.ts'
import type { Move } from './logic/undo.ts'
import { MoveToast } from './MoveToast.tsx'
import type { WriteRecord } from './useShopOrderWrites.ts'

const MOVE: Move = {
  id: 3,
  project: null,
  back: false,
  orders: [
    {
      id: 'a',
      number: 24012,
      before: { PlannedStartDate: '2026-11-30', PlannedDate: '2026-12-02' },
      after: { PlannedStartDate: '2026-12-03', PlannedDate: '2026-12-05' },
    },
  ],
}

const write = (over: Partial<WriteRecord>): WriteRecord => ({
  key: 1,
  orderId: 'a',
  number: 24012,
  change: MOVE.orders[0].after,
  shown: {},
  status: 'sending',
  error: null,
  entryId: null,
  move: MOVE.id,
  ...over,
})

function show(writes: WriteRecord[], stands = true) {
  render(<MoveToast move={MOVE} writes={writes} stands={stands} onUndo={vi.fn()} onClose={vi.fn()} />)
}

afterEach(() => {
  cleanup()
  setLanguage('en', false)
})

describe('MoveToast', () => {
  it('says where the order went and how its write stands, with Undo', () => {
    show([write({ status: 'pending' }), write({ key: 0, move: 2, status: 'failed', error: 'an earlier move' })])
    expect(screen.getByTestId('move-text').textContent).toBe('Moved SO 24012 to Thu 3 Dec.')
    expect(screen.getByRole('status').textContent).toContain('Queued: sent when Exact Online answers')
    expect(screen.getByRole('button', { name: 'Undo' })).toBeTruthy()
  })

  it('in Dutch', () => {
    setLanguage('nl', false)
    show([write({ status: 'delivered' })])
    expect(screen.getByTestId('move-text').textContent).toBe('SO 24012 verplaatst naar do 3 dec.')
    expect(screen.getByRole('button', { name: 'Ongedaan maken' })).toBeTruthy()
  })

  it('has no Undo for a refused move, and says why it went back', () => {
    show([write({ status: 'failed', error: 'Datum ongeldig' })], false)
    expect(screen.queryByRole('button', { name: 'Undo' })).toBeNull()
    expect(screen.getByRole('status').textContent).toContain('Refused by Exact Online: Datum ongeldig')
  })

  it('has no Undo once the order stands elsewhere', () => {
    show([write({ status: 'delivered' })], false)
    expect(screen.queryByRole('button', { name: 'Undo' })).toBeNull()
  })
})
