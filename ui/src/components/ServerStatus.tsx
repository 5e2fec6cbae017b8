import { useHealth } from '../api/queries.ts'
import { t } from '../i18n/index.ts'
import { formatUptime } from '../lib/format.ts'
import { userMessage } from '../lib/errors.ts'

/** The server's liveness, shown small on the start page. */
export function ServerStatus() {
  const { data: health, error } = useHealth()
  return (
    <section aria-label={t('status.label')} className="text-xs text-slate-500">
      {error && (
        <p role="alert" className="text-red-700">
          {t('status.unreachable', { message: userMessage(error) })}
        </p>
      )}
      {!error && !health && <p>{t('status.checking')}</p>}
      {health && (
        <dl className="flex flex-wrap justify-center gap-x-4 gap-y-1" data-testid="health">
          <div className="flex gap-1">
            <dt>{t('status.status')}</dt>
            <dd className="text-slate-700">{health.status}</dd>
          </div>
          <div className="flex gap-1">
            <dt>{t('status.version')}</dt>
            <dd className="text-slate-700">{health.version}</dd>
          </div>
          <div className="flex gap-1">
            <dt>{t('status.uptime')}</dt>
            <dd className="text-slate-700">{formatUptime(health.uptime_seconds)}</dd>
          </div>
          <div className="flex gap-1">
            <dt>{t('status.store')}</dt>
            <dd className="text-slate-700">{health.store.status}</dd>
          </div>
        </dl>
      )}
    </section>
  )
}
