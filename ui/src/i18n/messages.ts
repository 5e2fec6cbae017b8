// The English message catalogue. Every string the UI shows comes from here, so a second
// language is one more object of the same type.

export const en = {
  'app.name': 'Stock Manager',
  'app.shortName': 'ESM',
  'app.loading': 'Loading…',

  'home.tagline': 'Stock, production and labels for your Exact Online organization.',
  'home.signIn': 'Sign in with Exact Online',
  'home.redirecting': 'Taking you to Exact Online…',

  'status.label': 'Server status',
  'status.checking': 'Checking the server…',
  'status.unreachable': 'Server not reachable: {message}',
  'status.status': 'Status',
  'status.version': 'Version',
  'status.uptime': 'Uptime',
  'status.store': 'Store',

  'callback.working': 'Signing you in…',
  'callback.failed': 'Sign-in failed',
  'callback.missingCode': 'The sign-in page did not return a code.',
  'callback.backHome': 'Back to the start page',

  'licence.title': 'Activate your organization',
  'licence.intro': 'Enter the licence code you received for this organization.',
  'licence.organization': 'Organization',
  'licence.division': 'Division',
  'licence.code': 'Licence code',
  'licence.activate': 'Activate',
  'licence.activating': 'Activating…',
  'licence.missingOrganization': 'No organization was given. Sign in again to choose one.',

  'nav.label': 'Main',
  'nav.for': 'for',
  'nav.portalTitle': 'Open Exact Online',
  'nav.organization': 'Organization',
  'nav.settings': 'Settings',
  'nav.preferences': 'Preferences',
  'nav.logout': 'Logout',

  'session.expired': 'Your session has ended. Please sign in again.',

  'logout.confirm': 'Are you sure you want to logout?',
  'logout.no': 'No',
  'logout.yes': 'Yes',

  'error.generic': 'An error has occurred',
  'error.critical': 'A CRITICAL error occurred, you will be returned to the login screen',
  'error.continue': 'Continue',
  'error.network': 'Function code timed out or there was a network issue / try executing the call again',

  'dashboard.title': 'Dashboard',
  'dashboard.division': 'Division {division}',
  'dashboard.notActivated': 'This organization is not activated yet.',
  'dashboard.activateLink': 'Enter a licence code',
  'dashboard.tables': 'Synchronised tables',
  'dashboard.table': 'Table',
  'dashboard.rows': 'Rows',
  'dashboard.timestamp': 'Last timestamp',
  'dashboard.error': 'Error',
  'dashboard.lastSync': 'Last sync: {time}',
  'dashboard.neverSynced': 'Not synchronised yet.',
  'dashboard.running': 'A sync is running…',

  'sync.button': 'Sync Data',
  'sync.choose': 'Choose the data to sync',
  'sync.syncEndpoints': 'Synchronised tables',
  'sync.liveEndpoints': 'Fetched live',
  'sync.started': 'Sync started.',
  'sync.alreadyRunning': 'A sync is already running.',
  'sync.nothingSelected': 'Select at least one table to sync.',

  'toast.refreshing': 'Refreshing {name}',
  'toast.remaining.one': '{count} second remaining',
  'toast.remaining.other': '{count} seconds remaining',
  'toast.paused': 'Paused, waiting for Exact Online',
  'toast.done': 'Done',
  'toast.list': 'Sync progress',
} as const

export type MessageKey = keyof typeof en
export type Catalogue = Record<MessageKey, string>
