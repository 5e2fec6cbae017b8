import { describe, expect, it } from 'vitest'
import { againWhileStored, inLiveSlot, LIVE_READS_AT_ONCE, STORED_RETRY_MS } from './exactDirect.ts'

describe('againWhileStored', () => {
  it('asks again soon while the answer is the stored copy, and not once Exact Online answered', () => {
    expect(againWhileStored({ state: { data: { asOf: 1_795_000_000_000 } } })).toBe(STORED_RETRY_MS)
    expect(againWhileStored({ state: { data: { asOf: null } } })).toBe(false)
    expect(againWhileStored({ state: {} })).toBe(false)
  })
})

describe('inLiveSlot', () => {
  it('runs at most LIVE_READS_AT_ONCE live reads at once, each of them in the end, a failed one freeing its slot', async () => {
    let running = 0
    let most = 0
    const done: number[] = []
    const releases: (() => void)[] = []
    const read = (n: number) => () =>
      new Promise<number>((resolve, reject) => {
        running++
        most = Math.max(most, running)
        releases.push(() => {
          running--
          done.push(n)
          if (n === 2) reject(new Error('Exact Online refused'))
          else resolve(n)
        })
      })
    const all = Array.from({ length: 8 }, (_, n) => inLiveSlot(read(n)).catch(() => -1))
    const settle = () => new Promise((r) => setTimeout(r, 0))
    await settle()
    expect(running).toBe(LIVE_READS_AT_ONCE)
    while (releases.length) {
      releases.shift()?.()
      await settle()
    }
    expect(await Promise.all(all)).toEqual([0, 1, -1, 3, 4, 5, 6, 7])
    expect(most).toBe(LIVE_READS_AT_ONCE)
    expect(done).toHaveLength(8)
    // the slots are free again afterwards
    expect(await inLiveSlot(async () => 'next')).toBe('next')
  })
})
