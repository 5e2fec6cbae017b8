import { useEffect, useRef, useState, type KeyboardEvent, type PointerEvent } from 'react'
import { t } from '../../i18n/index.ts'
import { DAY_MS, formatDay } from '../../lib/dateTime.ts'
import type { Availability } from './logic/availability.ts'
import { keyMoveBuffer, type KeyMove } from './logic/keyMoves.ts'
import { barBox, dayIso, draggedDates, dragSteps, type Axis, type DragMode } from './logic/timeline.ts'
import { AVAILABILITY_DOT, AVAILABILITY_LABEL, LATE_RING, statusClass } from './bars.ts'

export interface BarOrder {
  id: string
  number: number
  label: string
  startDay: number
  endDay: number
  status: number
  onHold: boolean
  /** Planned date passed and not finished. */
  late: boolean
  availability: Availability
  pending: boolean
}

/** A press that moves less than this is a click: it opens the shop order. */
const CLICK_PX = 4

/**
 * One shop order on the timeline. Drag the middle to move it, an edge to change its start or
 * planned date; arrow keys do the same by one column (Shift: the planned date only), moving the
 * bar at once and writing the presses as one change once the keys rest or the bar loses focus.
 */
export function Bar({
  order,
  axis,
  onOpen,
  onDrag,
}: {
  order: BarOrder
  axis: Axis
  onOpen: (id: string) => void
  onDrag: (id: string, mode: DragMode, steps: number) => void
}) {
  const [drag, setDrag] = useState<{ mode: DragMode; dx: number } | null>(null)
  const origin = useRef<{ x: number; mode: DragMode } | null>(null)
  const [keyed, setKeyed] = useState<KeyMove | null>(null)
  // the latest onDrag and id, so the buffer made once writes through the current ones
  const write = useRef({ onDrag, id: order.id })
  write.current = { onDrag, id: order.id }
  const keys = useRef<ReturnType<typeof keyMoveBuffer> | null>(null)
  keys.current ??= keyMoveBuffer((m) => write.current.onDrag(write.current.id, m.mode, m.steps), setKeyed)
  // a bar scrolled out of the page (its row is virtual) or closed still writes its moves
  useEffect(() => () => keys.current?.flush(), [])
  const days = keyed ? draggedDates(keyed.mode, order.startDay, order.endDay, keyed.steps, axis.skipWeekends) : order
  const box = barBox(axis, days.startDay, days.endDay)

  const down = (e: PointerEvent<HTMLButtonElement>) => {
    if (e.button !== 0) return
    keys.current?.flush()
    const edge = (e.target as HTMLElement).dataset.edge as DragMode | undefined
    origin.current = { x: e.clientX, mode: edge ?? 'move' }
    e.currentTarget.setPointerCapture(e.pointerId)
  }
  const move = (e: PointerEvent<HTMLButtonElement>) => {
    if (!origin.current) return
    const dx = e.clientX - origin.current.x
    if (drag || Math.abs(dx) >= CLICK_PX) setDrag({ mode: origin.current.mode, dx })
  }
  const up = (e: PointerEvent<HTMLButtonElement>) => {
    const o = origin.current
    origin.current = null
    if (!o) return
    const dx = e.clientX - o.x
    setDrag(null)
    if (Math.abs(dx) < CLICK_PX) onOpen(order.id)
    else {
      const steps = dragSteps(axis, dx)
      if (steps !== 0) onDrag(order.id, o.mode, steps)
    }
  }
  const key = (e: KeyboardEvent<HTMLButtonElement>) => {
    const step = e.key === 'ArrowRight' ? 1 : e.key === 'ArrowLeft' ? -1 : 0
    if (!step) return
    e.preventDefault()
    keys.current?.press(e.shiftKey ? 'end' : 'move', step)
  }

  let left = box.left
  let width = box.width
  if (drag?.mode === 'move') left += drag.dx
  if (drag?.mode === 'start') {
    left += Math.min(drag.dx, width - 8)
    width -= Math.min(drag.dx, width - 8)
  }
  if (drag?.mode === 'end') width = Math.max(8, width + drag.dx)

  const title =
    t('planning.bar.title', {
      number: order.number,
      label: order.label,
      start: formatDay(days.startDay * DAY_MS),
      end: formatDay(days.endDay * DAY_MS),
      availability: t(AVAILABILITY_LABEL[order.availability]),
    }) + (order.late ? ` ${t('planning.lateTitle', { end: formatDay(order.endDay * DAY_MS) })}` : '')
  return (
    <button
      type="button"
      data-testid={`bar-${order.number}`}
      data-start={dayIso(days.startDay)}
      data-end={dayIso(days.endDay)}
      data-late={order.late || undefined}
      // named by the text it shows (what voice control users say); the dates and how to move it
      // are its description
      title={title}
      onPointerDown={down}
      onPointerMove={move}
      onPointerUp={up}
      onPointerCancel={() => {
        origin.current = null
        setDrag(null)
      }}
      onKeyDown={key}
      onBlur={() => keys.current?.flush()}
      onClick={(e) => {
        // pointer clicks are handled on pointer up; this is the keyboard's Enter and Space
        if (e.detail === 0) onOpen(order.id)
      }}
      style={{ left, width, touchAction: 'none' }}
      className={`absolute top-1.5 bottom-1.5 flex cursor-grab items-center gap-1 overflow-hidden rounded border px-1 text-left text-xs font-medium whitespace-nowrap shadow-sm select-none focus:ring-2 focus:ring-sky-600 focus:outline-none active:cursor-grabbing ${statusClass(order.status, order.onHold)} ${order.late ? LATE_RING : ''} ${drag ? 'z-20 opacity-80 shadow-lg' : ''} ${order.pending ? 'animate-pulse' : ''}`}
    >
      <span data-edge="start" aria-hidden="true" className="absolute inset-y-0 left-0 w-2 cursor-ew-resize" />
      <span aria-hidden="true" className={`h-2.5 w-2.5 shrink-0 rounded-full ${AVAILABILITY_DOT[order.availability]}`} />
      {order.late && <span className="shrink-0 rounded bg-red-700 px-1 text-[10px] leading-4 font-semibold text-white">{t('planning.late')}</span>}
      <span className="truncate">
        {order.number} {order.label}
      </span>
      <span data-edge="end" aria-hidden="true" className="absolute inset-y-0 right-0 w-2 cursor-ew-resize" />
    </button>
  )
}
