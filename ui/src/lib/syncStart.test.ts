import { describe, expect, it } from 'vitest'
import { ApiError } from '../api/client.ts'
import { syncStartMessage } from './syncStart.ts'

describe('syncStartMessage', () => {
  it('says started, already running, or the error; nothing before the click', () => {
    expect(syncStartMessage({ isError: false, isSuccess: false, error: null })).toBeNull()
    expect(syncStartMessage({ isError: false, isSuccess: true, error: null })).toBe('Sync started.')
    const running = new ApiError(409, 'sync_running', 'A sync is already running for this organization.')
    expect(syncStartMessage({ isError: true, isSuccess: false, error: running })).toBe('A sync is already running.')
    const refused = new ApiError(403, 'forbidden', 'Only an administrator can do this.')
    expect(syncStartMessage({ isError: true, isSuccess: false, error: refused })).not.toBe('A sync is already running.')
  })
})
