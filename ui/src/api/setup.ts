// First run: while the server has no Exact Online client id and secret, the Home page sets them
// up (the setup code from the server's console protects it).
import { call, type Schema } from './contract.ts'

export type ProviderHost = Schema<'ProviderHost'>

/**
 * Whether the server waits to be set up. The document has one shape for both answers: the
 * details below come only with `needed` (read them through `neededSetup`), `restarting` only
 * without it (set up just now, the server is about to restart with the new settings).
 */
export type SetupStatus = Schema<'SetupStatus'>

/** A server that waits to be set up, with what the setup page shows. */
export interface SetupNeeded {
  /** What to register as the app's redirect URL in the Exact App Center. */
  redirectUrl: string
  /** The configured host, preselected. */
  baseUrl: string
  clientId: string
  hosts: ProviderHost[]
  /** Where the settings will be written: the settings file in the data directory. */
  settingsFile: string
}

/** The setup page's details when the server waits to be set up, else null. */
export function neededSetup(status: SetupStatus | undefined): SetupNeeded | null {
  if (!status?.needed) return null
  return {
    redirectUrl: status.redirectUrl ?? '',
    baseUrl: status.baseUrl ?? '',
    clientId: status.clientId ?? '',
    hosts: status.hosts ?? [],
    settingsFile: status.settingsFile ?? '',
  }
}

export type SetupTest = Schema<'SetupTestBody'>
export type SetupDone = Schema<'SetupDone'>

/** The prefix of a setup's test sign-in `state` (the callback page sends it to the setup). */
export const SETUP_STATE_PREFIX = 'setup.'

export const getSetup = () => call('get', '/setup')

/** Checks the code, keeps the settings and answers the Exact sign-in that tests them. */
export const testSetup = (body: SetupTest) => call('post', '/setup/test', { body })

/** The test sign-in came back: the server writes the settings and restarts with them. */
export const finishSetup = (code: string, state: string) => call('post', '/setup/finish', { body: { code, state } })

/** The host choices: Exact's country hosts, and the configured one when it is none of them. */
export function hostChoices(status: { baseUrl: string; hosts: ProviderHost[] }): ProviderHost[] {
  const configured = status.baseUrl.replace(/\/+$/, '')
  if (!configured || status.hosts.some((h) => h.url === configured)) return status.hosts
  return [...status.hosts, { name: configured, url: configured }]
}
