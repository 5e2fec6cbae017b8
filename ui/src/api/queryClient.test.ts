import { describe, expect, it } from 'vitest'
import { ApiError } from './client.ts'
import { LIVE_LIST_RETRY } from './queryClient.ts'

const unreachable = new ApiError(503, 'provider_unreachable', 'Exact Online cannot be reached')

describe('LIVE_LIST_RETRY', () => {
  it('asks again for a list Exact Online did not answer, every 15 s, four times', () => {
    expect([0, 1, 2, 3, 4].map((n) => LIVE_LIST_RETRY.retry(n, unreachable))).toEqual([true, true, true, true, false])
    expect(LIVE_LIST_RETRY.retryDelay(1, unreachable)).toBe(15_000)
  })

  it('keeps the usual rules for other errors', () => {
    expect(LIVE_LIST_RETRY.retry(0, new ApiError(403, 'forbidden', 'no'))).toBe(false)
    expect(LIVE_LIST_RETRY.retry(1, new ApiError(500, 'internal', 'x'))).toBe(true)
    expect(LIVE_LIST_RETRY.retry(2, new ApiError(500, 'internal', 'x'))).toBe(false)
    expect(LIVE_LIST_RETRY.retryDelay(1, new ApiError(500, 'internal', 'x'))).toBe(2_000)
  })
})
