// Writes of shop order changes, shown as they go: the change shows at once, and its state follows
// the outbox (sending → pending → delivered, or refused with Exact's message, which undoes it).
// A queued write (202, e.g. while Exact Online cannot be reached) keeps the change however long
// it waits: only a refusal undoes it.
import { useCallback, useEffect, useRef, useState } from 'react'
import { isApiError } from '../../api/client.ts'
import { getOutboxEntry, updateShopOrder, type ShopOrder, type ShopOrderChange, type ShownChange } from './api.ts'
import { waitingReason } from '../../api/writes.ts'

export type WriteStatus = 'sending' | 'pending' | 'delivered' | 'failed'

export interface WriteRecord {
  key: number
  orderId: string
  number: number
  change: ShopOrderChange
  /** What the change shows but does not write (the new selection code's code). */
  shown: ShownChange
  status: WriteStatus
  /** When failed: Exact's refusal (or why it could not be sent). When pending: why it waits, if known. */
  error: string | null
  entryId: number | null
  /** The move this write belongs to (the undo toast follows its writes), if any. */
  move: number | null
}

const POLL_MS = 1_500
/** How many finished writes stay listed. */
const KEEP = 5

export function useShopOrderWrites() {
  const [overrides, setOverrides] = useState<Record<string, ShopOrderChange & ShownChange>>({})
  const [writes, setWrites] = useState<WriteRecord[]>([])
  const seq = useRef(0)
  const alive = useRef(true)
  useEffect(() => {
    alive.current = true
    return () => {
      alive.current = false
    }
  }, [])

  const patch = useCallback((key: number, p: Partial<WriteRecord>) => {
    if (alive.current) setWrites((list) => list.map((w) => (w.key === key ? { ...w, ...p } : w)))
  }, [])

  const follow = useCallback(
    async (key: number, entryId: number, undo: () => void) => {
      // a queued write is followed until Exact answers
      while (alive.current) {
        await new Promise((r) => setTimeout(r, POLL_MS))
        try {
          const e = await getOutboxEntry(entryId)
          if (e.state === 'delivered') return patch(key, { status: 'delivered', error: null })
          if (e.state === 'failed') {
            undo()
            return patch(key, { status: 'failed', error: e.error })
          }
          patch(key, { error: e.error })
        } catch {
          // the server is briefly away: keep asking
        }
      }
    },
    [patch],
  )

  const write = useCallback(
    /**
     * Shows the change at once and sends it once `after` settles (an undo waits for the move it
     * takes back to be in the outbox). Resolves with the first answer's state: delivered,
     * pending (queued) or failed.
     */
    async (
      order: Pick<ShopOrder, 'ID' | 'ShopOrderNumber'>,
      change: ShopOrderChange,
      shown: ShownChange = {},
      move: number | null = null,
      after?: Promise<unknown>,
    ): Promise<WriteStatus> => {
      const key = ++seq.current
      let previous: (ShopOrderChange & ShownChange) | undefined
      setOverrides((o) => {
        previous = o[order.ID]
        return { ...o, [order.ID]: { ...o[order.ID], ...change, ...shown } }
      })
      const undo = () =>
        alive.current &&
        setOverrides((o) => {
          const next = { ...o }
          if (previous) next[order.ID] = previous
          else delete next[order.ID]
          return next
        })
      setWrites((list) => [
        { key, orderId: order.ID, number: order.ShopOrderNumber, change, shown, status: 'sending' as const, error: null, entryId: null, move },
        ...list.filter((w) => w.status === 'sending' || w.status === 'pending' || list.indexOf(w) < KEEP),
      ])
      try {
        await after
        const res = await updateShopOrder(order.ID, change)
        const entryId = res.entries[0]?.id ?? null
        if (res.state === 'delivered') {
          patch(key, { status: 'delivered', entryId })
          return 'delivered'
        }
        if (res.state === 'failed') {
          undo()
          patch(key, { status: 'failed', error: res.error, entryId })
          return 'failed'
        }
        patch(key, { status: 'pending', entryId, error: res.error ?? waitingReason(res.entries) })
        if (entryId !== null) void follow(key, entryId, undo)
        return 'pending'
      } catch (e) {
        undo()
        patch(key, { status: 'failed', error: isApiError(e) ? e.message : String(e) })
        return 'failed'
      }
    },
    [follow, patch],
  )

  const dismiss = useCallback((key: number) => setWrites((list) => list.filter((w) => w.key !== key)), [])

  return { overrides, writes, write, dismiss }
}
