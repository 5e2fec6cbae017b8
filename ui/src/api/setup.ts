// First run: while the server has no Exact Online client id and secret, the Home page sets them
// up (the setup code from the server's log protects it).
import { api } from './client.ts'

export interface ProviderHost {
  name: string
  url: string
}

export type SetupStatus =
  /** `restarting`: set up just now, the server is about to restart with the new settings. */
  | { needed: false; restarting?: boolean }
  | {
      needed: true
      /** What to register as the app's redirect URL in the Exact App Center. */
      redirectUrl: string
      /** The configured host, preselected. */
      baseUrl: string
      clientId: string
      hosts: ProviderHost[]
      /** Where the settings will be written. */
      configFile: string
    }

export interface SetupTest {
  setupCode: string
  clientId: string
  clientSecret: string
  baseUrl: string
}

export interface SetupDone {
  done: true
  userName: string
  customerName: string
  division: number | null
  configFile: string
}

/** The prefix of a setup's test sign-in `state` (the callback page sends it to the setup). */
export const SETUP_STATE_PREFIX = 'setup.'

export const getSetup = () => api<SetupStatus>('/setup')

/** Checks the code, keeps the settings and answers the Exact sign-in that tests them. */
export const testSetup = (body: SetupTest) => api<{ authorizeUrl: string }>('/setup/test', { method: 'POST', body })

/** The test sign-in came back: the server writes the settings and restarts with them. */
export const finishSetup = (code: string, state: string) =>
  api<SetupDone>('/setup/finish', { method: 'POST', body: { code, state } })

/** The host choices: Exact's country hosts, and the configured one when it is none of them. */
export function hostChoices(status: { baseUrl: string; hosts: ProviderHost[] }): ProviderHost[] {
  const configured = status.baseUrl.replace(/\/+$/, '')
  if (!configured || status.hosts.some((h) => h.url === configured)) return status.hosts
  return [...status.hosts, { name: configured, url: configured }]
}
