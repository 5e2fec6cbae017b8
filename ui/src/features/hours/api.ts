// The Hours screen's reads and writes: time transactions live from the provider, shop orders
// and routing steps from the local copy, employees from the live list, operator timers from the
// server.
import { call } from '../../api/contract.ts'
import { chunks, dbGet, inList, liveGet } from '../../api/db.ts'
import { readDirect } from '../../api/exactDirect.ts'
import type { LiveRows } from '../../api/live.ts'
import { sendWrite } from '../../api/writes.ts'
import { dayLit } from '../../lib/odata.ts'
import { addDays, timeTransactionData, toEntries, type Booking, type HourEntry, type TimerStart } from './logic.ts'

export interface Employee {
  ID: string
  Code: string
  FullName: string
}

export const fetchEmployees = () => liveGet<Employee>('employees')

export async function fetchWeek(start: Date): Promise<LiveRows<HourEntry>> {
  const { rows, asOf } = await readDirect('manufacturing/TimeTransactions', {
    filter: `Date ge ${dayLit(start)} and Date lt ${dayLit(addDays(start, 7))}`,
    select: 'ID,Date,Employee,Hours,Activity,ShopOrder,RoutingStepPlan,WorkCenter,Notes',
  })
  return { rows: toEntries(rows), asOf }
}

export interface ShopOrderRef {
  ID: string
  ShopOrderNumber: number
  ItemCode: string
  ItemDescription: string
  Status: number
}

export interface StepRef {
  ID: string
  ShopOrder: string
  LineNumber: number
  OperationCode: string
  OperationDescription: string
  Workcenter: string
  WorkcenterCode: string
  PlannedSetupHours: number
  PlannedRunHours: number
  Status: number
}

const SO_FIELDS = 'ID,ShopOrderNumber,ItemCode,ItemDescription,Status'
const STEP_FIELDS = 'ID,ShopOrder,LineNumber,OperationCode,OperationDescription,Workcenter,WorkcenterCode,PlannedSetupHours,PlannedRunHours,Status'

export async function findShopOrder(typed: string): Promise<ShopOrderRef | null> {
  const n = typed.trim()
  if (!/^\d{1,10}$/.test(n)) return null
  const rows = await dbGet<ShopOrderRef>('shopOrders', [
    ['ShopOrderNumber', `eq.${n}`],
    ['select', SO_FIELDS],
    ['limit', '1'],
  ])
  return rows[0] ?? null
}

export const fetchSteps = (shopOrder: string) =>
  dbGet<StepRef>('shopOrderRoutingStepPlans', [
    ['ShopOrder', `eq.${shopOrder}`],
    ['select', STEP_FIELDS],
    ['order', 'LineNumber.asc'],
    ['limit', '200'],
  ])

/** Shop orders and routing steps by id, to name the entries of a week. */
export async function fetchNames(entries: readonly HourEntry[]): Promise<{ orders: Map<string, ShopOrderRef>; steps: Map<string, StepRef> }> {
  const soIds = [...new Set(entries.map((e) => e.shopOrder).filter(Boolean))]
  const stepIds = [...new Set(entries.map((e) => e.step).filter(Boolean))]
  const [orders, steps] = await Promise.all([
    Promise.all(
      chunks(soIds, 100).map((ids) =>
        dbGet<ShopOrderRef>('shopOrders', [
          ['ID', inList(ids)],
          ['select', SO_FIELDS],
          ['limit', '1000'],
        ]),
      ),
    ),
    Promise.all(
      chunks(stepIds, 100).map((ids) =>
        dbGet<StepRef>('shopOrderRoutingStepPlans', [
          ['ID', inList(ids)],
          ['select', STEP_FIELDS],
          ['limit', '1000'],
        ]),
      ),
    ),
  ])
  const byId = <T extends { ID: string }>(rows: T[]) => new Map(rows.map((r) => [r.ID.toLowerCase(), r]))
  return { orders: byId(orders.flat()), steps: byId(steps.flat()) }
}

export const stepLabel = (s: Pick<StepRef, 'LineNumber' | 'OperationCode' | 'OperationDescription'>) =>
  `${s.LineNumber}. ${[s.OperationCode, s.OperationDescription].filter(Boolean).join(' ')}`

/**
 * Books hours (a new transaction) or changes the one with `id`; made in a Wi-Fi dead spot it
 * waits on the device, named by `summary`.
 */
/**
 * Books hours (`id`: changes a booking). `timer`: the operator timer they come from, which the
 * server takes off the running ones with the booking, so a second device booking it gets a 409.
 */
export const saveHours = (b: Booking, summary: string, id?: string, timer?: string) =>
  sendWrite(
    timer ? `/exact/timeTransactions?timer=${encodeURIComponent(timer)}` : '/exact/timeTransactions',
    id ? 'PUT' : 'POST',
    id ? { id, data: timeTransactionData(b) } : { data: timeTransactionData(b) },
    {
      keep: { kind: 'hours', summary },
    },
  )

/** The organization's running operator timers, with the server's clock. */
export const fetchTimers = () => call('get', '/hours/timers')

/** Starts a timer on the server's clock (or hands over one this browser kept). */
export const startTimer = (t: TimerStart) => call('post', '/hours/timers', { body: t })

/** Removes a timer: booked, or started by mistake. */
export const removeTimer = (id: string) => call('delete', '/hours/timers/{id}', { params: { id } })
