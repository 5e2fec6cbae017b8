import { describe, expect, it } from 'vitest'
import { naturalCompare, textCompare } from './order.ts'

describe('text orders', () => {
  it('read numbers by value, and text as the language does', () => {
    expect(['PO 10', 'PO 9', 'PO 100'].sort(naturalCompare)).toEqual(['PO 9', 'PO 10', 'PO 100'])
    expect(['b', 'A', 'a'].sort(textCompare)).toEqual(['a', 'A', 'b'])
  })
})
