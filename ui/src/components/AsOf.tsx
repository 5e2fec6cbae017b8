import { t } from '../i18n/index.ts'
import { formatAsOf } from '../lib/dateTime.ts'

/**
 * Says that what a screen shows is the server's stored copy of an earlier time (Exact Online
 * could not be reached); nothing when it was read live. `compact` for handhelds and tight rows.
 */
export function AsOf({
  asOf,
  compact = false,
  className = '',
  title,
}: {
  asOf: number | null | undefined
  compact?: boolean
  className?: string
  /** Why the copy is shown, when it is not Exact Online being out of reach (the time is filled in). */
  title?: (time: string) => string
}) {
  if (asOf === null || asOf === undefined) return null
  const time = formatAsOf(asOf)
  return (
    <p
      role="status"
      data-testid="as-of"
      title={title ? title(time) : t('outage.asOfTitle', { time })}
      className={`text-xs font-medium text-amber-800 ${className}`}
    >
      {t(compact ? 'outage.asOfShort' : 'outage.asOf', { time })}
    </p>
  )
}
