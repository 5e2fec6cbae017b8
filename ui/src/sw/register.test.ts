import { describe, expect, it, vi } from 'vitest'
import { FIRST_RETRY_MS, keepRegistered, MAX_RETRY_MS } from './register.ts'

/** A worker whose state the test moves on, telling its listeners as a browser does. */
class FakeWorker extends EventTarget {
  state: ServiceWorkerState = 'installing'
  move(state: ServiceWorkerState) {
    this.state = state
    this.dispatchEvent(new Event('statechange'))
  }
}

class FakeRegistration extends EventTarget {
  installing: FakeWorker | null = null
  waiting: FakeWorker | null = null
  active: FakeWorker | null = null
}

/** A container whose registrations each get a worker that ends as `ends` says, in turn. */
function container(ends: ('activated' | 'redundant' | 'refused')[]) {
  const registered: FakeRegistration[] = []
  const register = vi.fn(async () => {
    const end = ends[registered.length] ?? 'activated'
    if (end === 'refused') {
      registered.push(new FakeRegistration())
      throw new TypeError('Failed to register a ServiceWorker: An unknown error occurred when fetching the script.')
    }
    const registration = new FakeRegistration()
    const worker = new FakeWorker()
    registration.installing = worker
    registered.push(registration)
    setTimeout(() => {
      if (end === 'activated') {
        registration.installing = null
        registration.active = worker
      }
      worker.move(end)
    }, 0)
    return registration
  })
  return { register, registered } as unknown as ServiceWorkerContainer & { register: typeof register; registered: FakeRegistration[] }
}

describe('keepRegistered', () => {
  it('settles once the worker is active, without waiting', async () => {
    const c = container(['activated'])
    const sleep = vi.fn(async () => {})
    await keepRegistered(c, sleep)
    expect(c.register).toHaveBeenCalledTimes(1)
    expect(c.register).toHaveBeenCalledWith('/sw.js', { scope: '/', updateViaCache: 'none' })
    expect(sleep).not.toHaveBeenCalled()
  })

  it('registers again, waiting longer each time, after a failed install or a refused script', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const c = container(['refused', 'redundant', 'redundant', 'activated'])
    const waits: number[] = []
    await keepRegistered(c, async (ms) => {
      waits.push(ms)
    })
    expect(c.register).toHaveBeenCalledTimes(4)
    expect(waits).toEqual([FIRST_RETRY_MS, FIRST_RETRY_MS * 2, FIRST_RETRY_MS * 4])
    expect(warn).toHaveBeenCalledTimes(1)
    warn.mockRestore()
  })

  it('never waits longer than the cap between tries', async () => {
    const c = container(Array<'redundant'>(12).fill('redundant'))
    const waits: number[] = []
    await keepRegistered(c, async (ms) => {
      waits.push(ms)
    })
    expect(waits).toHaveLength(12)
    expect(Math.max(...waits)).toBe(MAX_RETRY_MS)
  })

  it('takes a worker that is active already, as after a reload', async () => {
    const registration = new FakeRegistration()
    registration.active = new FakeWorker()
    const register = vi.fn(async () => registration)
    const sleep = vi.fn(async () => {})
    await keepRegistered({ register } as unknown as ServiceWorkerContainer, sleep)
    expect(sleep).not.toHaveBeenCalled()
  })
})
