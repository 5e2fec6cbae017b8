import { describe, expect, it } from 'vitest'
import {
  COUNTDOWN_SECONDS,
  eventsUrl,
  parseToast,
  progressOf,
  tickCountdown,
  toastsInView,
  toastsReducer,
  VISIBLE_TOASTS,
  type Toast,
  type ToastEvent,
} from './toasts.ts'

const event = (over: Partial<ToastEvent> = {}): ToastEvent => ({
  name: 'Items',
  message: 'Refreshing Items',
  total: 1000,
  remaining: 600,
  done: false,
  paused: false,
  ...over,
})

describe('toast countdown', () => {
  it('counts down from 20 and starts over at 0 while not done', () => {
    let n = COUNTDOWN_SECONDS
    const seen: number[] = []
    for (let i = 0; i < 22; i++) {
      seen.push(n)
      n = tickCountdown(n, false)
    }
    expect(COUNTDOWN_SECONDS).toBe(20)
    expect(seen.slice(0, 3)).toEqual([20, 19, 18])
    expect(seen.slice(19, 22)).toEqual([1, 0, 20])
  })

  it('stops at 0 when done', () => {
    expect(tickCountdown(12, true)).toBe(0)
    expect(tickCountdown(0, true)).toBe(0)
  })
})

describe('toasts', () => {
  it('adds a toast per endpoint, updates it in place and ticks all', () => {
    let list: Toast[] = []
    list = toastsReducer(list, { type: 'event', event: event() })
    list = toastsReducer(list, { type: 'event', event: event({ name: 'Accounts' }) })
    list = toastsReducer(list, { type: 'event', event: event({ remaining: 100 }) })
    expect(list.map((t) => [t.name, t.remaining, t.countdown])).toEqual([
      ['Items', 100, 20],
      ['Accounts', 600, 20],
    ])
    list = toastsReducer(list, { type: 'tick' })
    expect(list.map((t) => t.countdown)).toEqual([19, 19])
  })

  it('collapses on toggle and is removed only once done', () => {
    let list = toastsReducer([], { type: 'event', event: event() })
    list = toastsReducer(list, { type: 'toggle', name: 'Items' })
    expect(list[0].collapsed).toBe(true)
    list = toastsReducer(list, { type: 'toggle', name: 'Items' })
    expect(list[0].collapsed).toBe(false)
    expect(toastsReducer(list, { type: 'remove', name: 'Items' })).toHaveLength(1)
    list = toastsReducer(list, { type: 'event', event: event({ done: true, remaining: 0 }) })
    expect(toastsReducer(list, { type: 'remove', name: 'Items' })).toHaveLength(0)
  })

  it('clears every toast when a stream in another language starts', () => {
    const one = toastsReducer([], { type: 'event', event: event({ name: 'Items' }) })
    expect(toastsReducer(one, { type: 'clear' })).toEqual([])
  })

  it('asks for the stream in the UI language', () => {
    expect(eventsUrl('nl')).toBe('/api/v1/events?lang=nl')
    expect(eventsUrl('en')).toBe('/api/v1/events?lang=en')
  })

  it('shows progress as the share received', () => {
    expect(progressOf(event())).toBeCloseTo(0.4)
    expect(progressOf(event({ total: 0 }))).toBe(0)
    expect(progressOf(event({ done: true, total: 0 }))).toBe(1)
  })

  it('reads the server frame and refuses junk', () => {
    const frame = JSON.stringify({ ...event(), division: 1, table: 'items', seconds_remaining: 4, error: null })
    expect(parseToast(frame)).toMatchObject({ name: 'Items', table: 'items', remaining: 600, error: null })
    expect(parseToast('nope')).toBeNull()
    expect(parseToast('{"total":1}')).toBeNull()
  })
})

describe('toasts in view', () => {
  const toast = (name: string, done: boolean): Toast => ({ ...event({ name, done }), countdown: 20, collapsed: false })
  const list = [toast('Accounts', true), toast('Items', true), toast('Projects', true), toast('Shop Orders', true), toast('Stock', false)]

  it('shows the newest three in the order they came and counts the older ones', () => {
    const { shown, more } = toastsInView(list, false)
    expect(VISIBLE_TOASTS).toBe(3)
    expect(shown.map((t) => t.name)).toEqual(['Projects', 'Shop Orders', 'Stock'])
    expect(more).toBe(2)
  })

  it('shows all when asked, and counts nothing when all fit', () => {
    expect(toastsInView(list, true)).toEqual({ shown: list, more: 0 })
    expect(toastsInView(list.slice(0, 3), false)).toEqual({ shown: list.slice(0, 3), more: 0 })
  })
})
