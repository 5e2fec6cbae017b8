import { QueryClientProvider } from '@tanstack/react-query'
import { act, renderHook, waitFor } from '@testing-library/react'
import type { ReactNode } from 'react'
import { describe, expect, it } from 'vitest'
import { createQueryClient } from '../../api/queryClient.ts'
import type { BookResult } from '../../api/writes.ts'
import { useWrite } from './fields.tsx'

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
