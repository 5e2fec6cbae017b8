// Preferences of the user and of the organization, its printers and accounts.
import { queryOptions } from '@tanstack/react-query'
import { call, type Schema } from './contract.ts'
import { queryKeys } from './queries.ts'

export type Preferences = Record<string, unknown>

/** Replaces the user's own preferences (send the whole object). */
export const updateUserPreferences = (uuid: string, preferences: Preferences) => call('put', '/updatePreferences', { body: { uuid, preferences } })

/** Replaces the organization's preferences; answers the organization details. */
export const updateOrganizationPreferences = (uuid: string, preferences: Preferences) =>
  call('put', '/updateOrganizationPreferences', { body: { uuid, preferences } })

/**
 * A printer with what it says of itself: `state` is `idle`, `processing`, `stopped`,
 * `unreachable`, or `discovered` while not accepted; `accepted` whether jobs may go to it (a
 * printer found on the network waits for an administrator).
 */
export type Printer = Schema<'PrinterView'>

export const getPrinters = () => call('get', '/printers')

/** The printers query: one key for the label buttons and the two settings screens that list them. */
export const printersQuery = queryOptions({ queryKey: queryKeys.printers, queryFn: getPrinters, retry: false })

/** Printers that take jobs: configured ones and accepted discoveries. */
export const usablePrinters = (printers: Printer[] | undefined): Printer[] => (printers ?? []).filter((p) => p.accepted)

/** Lets a printer found on the network receive jobs (needs a fresh administrator confirmation). */
export const acceptPrinter = (name: string) => call('post', '/printers/accept', { body: { name } })

/** The organization's signed-in users (administrators only). */
export const getSessions = () => call('get', '/sessions')

/** Ends every session of a user at once (administrators only). */
export const endSessions = (user: string) => call('delete', '/sessions/{user}', { params: { user } })

/** Stops a discovered printer from receiving jobs again until it is accepted anew. */
export const withdrawPrinter = (name: string) => call('post', '/printers/withdraw', { body: { name } })

/** A user of the organization who signed in with Exact Online, and whether that sign-in still works. */
export type OrgAccount = Schema<'AccountView'>

/** The accounts, and the one chosen for the sync, live reads and labels (none: any account that works). */
export type OrgAccounts = Schema<'OrgAccounts'>

export const getOrganizationAccounts = () => call('get', '/organization/accounts')
