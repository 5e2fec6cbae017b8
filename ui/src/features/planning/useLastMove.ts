// The last move of shop orders on the planning, and its undo: the previous dates written back
// through the same outbox as the move (so they are queued and retried like any write).
import { useCallback, useRef, useState } from 'react'
import type { ShopOrder, ShopOrderChange, ShownChange } from './api.ts'
import type { DateChange } from './logic/projectShift.ts'
import { canUndo, datesBefore, undoMove, type Move } from './logic/undo.ts'
import type { WriteStatus } from './useShopOrderWrites.ts'

type Write = (
  order: Pick<ShopOrder, 'ID' | 'ShopOrderNumber'>,
  change: ShopOrderChange,
  shown?: ShownChange,
  move?: number | null,
  after?: Promise<unknown>,
) => Promise<WriteStatus>

/** An order to move: as it is now (its dates are what Undo writes back) and its new dates. */
export interface MoveOf {
  order: Pick<ShopOrder, 'ID' | 'ShopOrderNumber' | 'PlannedStartDate' | 'PlannedDate'>
  change: DateChange
}

export function useLastMove(write: Write) {
  const [last, setLast] = useState<Move | null>(null)
  const current = useRef<Move | null>(null)
  // each order's latest date write: the next one is sent once it has its answer, so the outbox
  // has an order's moves (and the move back) in the order they were made
  const sent = useRef(new Map<string, Promise<WriteStatus>>())
  const seq = useRef(0)

  const send = useCallback(
    (order: Pick<ShopOrder, 'ID' | 'ShopOrderNumber'>, change: DateChange, move: number) => {
      const written = write(order, change, {}, move, sent.current.get(order.ID))
      sent.current.set(order.ID, written)
    },
    [write],
  )

  const show = useCallback((move: Move | null) => {
    current.current = move
    setLast(move)
  }, [])

  /** Writes the moves (of one order, or of a whole project) and offers their undo. */
  const move = useCallback(
    (moves: MoveOf[], project: string | null = null) => {
      if (moves.length === 0) return
      const id = ++seq.current
      show({
        id,
        project,
        back: false,
        orders: moves.map(({ order, change }) => ({
          id: order.ID,
          number: order.ShopOrderNumber,
          before: datesBefore(order, change),
          after: change,
        })),
      })
      for (const { order, change } of moves) send(order, change, id)
    },
    [send, show],
  )

  /** Puts the last move's orders back where they were: on the planning at once, then in Exact Online. */
  const undo = useCallback(() => {
    const move = current.current
    if (!move || !canUndo(move)) return
    const back = undoMove(move, ++seq.current)
    show(back)
    for (const o of back.orders) send({ ID: o.id, ShopOrderNumber: o.number }, o.after, back.id)
  }, [send, show])

  const dismiss = useCallback(() => show(null), [show])

  return { last, move, undo, dismiss }
}
