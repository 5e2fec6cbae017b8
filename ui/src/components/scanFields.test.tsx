import { QueryClientProvider } from '@tanstack/react-query'
import { act, cleanup, render, renderHook, screen, waitFor } from '@testing-library/react'
import type { ReactNode } from 'react'
import { afterEach, describe, expect, it } from 'vitest'
import { createQueryClient } from '../api/queryClient.ts'
import type { BookResult } from '../api/writes.ts'
import { QuantityField, useWrite } from './scanFields.tsx'
import { setLanguage } from '../i18n/index.ts'

const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={createQueryClient()}>{children}</QueryClientProvider>

describe('a booking from a handheld panel', () => {
  it('starts a new round of numbers after a booking is taken, not after a refusal or while it is on its way', async () => {
    const answers: BookResult[] = [
      { state: 'delivered', error: null, entries: [] },
      { state: 'failed', error: 'Refused', entries: [] },
      { state: 'kept', error: null, entries: [], key: 'k' },
      { state: 'pending', error: null, entries: [] },
    ]
    const { result } = renderHook(() => useWrite((n: number) => Promise.resolve(answers[n - 1])), { wrapper })
    expect(result.current.round).toBe(0)
    await act(() => result.current.mutateAsync(1))
    await waitFor(() => expect(result.current.round).toBe(1))
    // a refused booking keeps the numbers the user gave, to correct them
    await act(() => result.current.mutateAsync(2))
    expect(result.current.round).toBe(1)
    await act(() => result.current.mutateAsync(3))
    await waitFor(() => expect(result.current.round).toBe(2))
    // a booking still on its way may be refused yet: its numbers stay to be corrected
    await act(() => result.current.mutateAsync(4))
    expect(result.current.round).toBe(2)
  })
})

describe('the quantity field', () => {
  afterEach(() => {
    cleanup()
    setLanguage('en', false)
  })
  const show = (value: string) => render(<QuantityField id="q" label="Quantity" value={value} onChange={() => {}} error={null} />)

  it('says when "2.500" is read as two thousand five hundred in Dutch', () => {
    setLanguage('nl', false)
    show('2.500')
    expect(screen.getByTestId('q-read').textContent).toBe('Gelezen als 2500: "." scheidt duizendtallen; gebruik "," voor decimalen.')
  })
  it('says nothing where the mark is the decimal one', () => {
    show('2.500')
    expect(screen.queryByTestId('q-read')).toBeNull()
    cleanup()
    show('2,500')
    expect(screen.getByTestId('q-read').textContent).toBe('Read as 2500: "," separates thousands; use "." for decimals.')
  })
})
