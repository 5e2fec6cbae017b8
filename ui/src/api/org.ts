// Preferences of the user and of the organization.
import { api } from './client.ts'
import type { OrganizationDetails } from './auth.ts'

export type Preferences = Record<string, unknown>

/** Replaces the user's own preferences (send the whole object). */
export const updateUserPreferences = (uuid: string, preferences: Preferences) =>
  api<{ uuid: string; preferences: Preferences }>('/updatePreferences', { method: 'PUT', body: { uuid, preferences } })

/** Replaces the organization's preferences; answers the organization details. */
export const updateOrganizationPreferences = (uuid: string, preferences: Preferences) =>
  api<OrganizationDetails>('/updateOrganizationPreferences', { method: 'PUT', body: { uuid, preferences } })

export interface Printer {
  name: string
  state?: string
  uri?: string
  source?: string
  [key: string]: unknown
}

export const getPrinters = () => api<Printer[]>('/printers')

/** A user of the organization who signed in with Exact Online, and whether that sign-in still works. */
export interface OrgAccount {
  user: string
  userName: string
  fullName: string
  access: 'ok' | 'signInNeeded'
}

export interface OrgAccounts {
  accounts: OrgAccount[]
  /** The account chosen for the sync, live reads and labels; null: any account that works. */
  syncAccount: string | null
}

export const getOrganizationAccounts = () => api<OrgAccounts>('/organization/accounts')
