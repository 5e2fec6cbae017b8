// What a button that starts a sync says once asked: started, already running, or why not.
import { isApiError } from '../api/client.ts'
import { t } from '../i18n/index.ts'
import { userMessage } from './errors.ts'

export function syncStartMessage(start: { isError: boolean; isSuccess: boolean; error: unknown }): string | null {
  if (start.isError) return isApiError(start.error, 409) ? t('sync.alreadyRunning') : userMessage(start.error)
  return start.isSuccess ? t('sync.started') : null
}
