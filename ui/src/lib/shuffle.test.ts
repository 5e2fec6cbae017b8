import { describe, expect, it } from 'vitest'
import { TIPS } from '../components/LoadingScreen.tsx'
import { shuffled } from './shuffle.ts'

describe('shuffled', () => {
  it('keeps every element once and leaves the input alone', () => {
    const input = [1, 2, 3, 4, 5]
    const out = shuffled(input)
    expect([...out].sort()).toEqual(input)
    expect(input).toEqual([1, 2, 3, 4, 5])
  })

  it('follows the random source', () => {
    expect(shuffled(['a', 'b', 'c'], () => 0)).toEqual(['b', 'c', 'a'])
    expect(shuffled(['a', 'b', 'c'], () => 0.999)).toEqual(['a', 'b', 'c'])
  })

  it('has the seven tips of the spec', () => {
    expect(TIPS).toHaveLength(7)
  })
})
