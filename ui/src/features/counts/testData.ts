// Counts as the server answers them, for the counts tests: each test says only what differs.
import type { CountLine, CountScope, CountSummary } from './logic.ts'

export const STARTED_MS = 1_780_000_000_000

/** A warehouse count of warehouse 1, which keeps its stock at storage locations. */
export function countScope(over: Partial<CountScope> = {}): CountScope {
  return { kind: 'warehouse', warehouse: 'w1', warehouseCode: '1', usesLocations: true, ...over }
}

/** A count being counted, started by Els Bakker; `lineCount` follows the lines given. */
export function countSummary(over: Partial<CountSummary> = {}): CountSummary {
  return {
    id: 'c1',
    description: '',
    scope: countScope(),
    createdBy: 'Els Bakker',
    createdMs: STARTED_MS,
    status: 'counting',
    error: null,
    mode: null,
    stockCountId: null,
    lineCount: over.lines?.length ?? 0,
    ...over,
  }
}

/** 98 bolts counted at A-01 by Jan de Vries. */
export function countLine(over: Partial<CountLine> = {}): CountLine {
  return {
    id: 'l1',
    item: 'i1',
    itemCode: 'BOLT-M8',
    itemDescription: 'Bolt M8',
    location: 'loc-a',
    locationCode: 'A-01',
    quantity: 98,
    countedBy: 'Jan de Vries',
    countedMs: STARTED_MS,
    ...over,
  }
}
