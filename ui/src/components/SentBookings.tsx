import { Link } from 'react-router'
import { t, tCount } from '../i18n/index.ts'
import { formatServerTime } from '../lib/dateTime.ts'
import { dismissSentNotice, useSentNotice } from '../offline/queue.ts'

/**
 * "2 bookings sent to Exact Online": once the bookings kept on this device have gone, the user
 * is told so (the waiting bar itself just disappears), with a link to the list of writes where
 * each one's state can be followed. It stays until dismissed.
 */
export function SentBookings({ division }: { division: number }) {
  const notice = useSentNotice()
  if (!notice) return null
  return (
    <section
      role="status"
      data-testid="sent-bookings"
      className="flex flex-wrap items-center gap-x-3 gap-y-1 border-b border-emerald-300 bg-emerald-50 px-3 py-1 text-emerald-950"
    >
      <span className="font-semibold">{tCount('offline.sent', notice.count)}</span>
      <span className="text-sm">{t('offline.sentAt', { time: formatServerTime(notice.at) })}</span>
      <Link to={`/mng?division=${division}#mng-outbox`} className="inline-flex min-h-11 items-center px-1 font-medium text-sky-900 underline">
        {t('offline.sentList')}
      </Link>
      <button
        type="button"
        onClick={dismissSentNotice}
        className="ml-auto min-h-11 min-w-11 rounded border border-emerald-700 px-3 text-emerald-900 hover:bg-emerald-100"
      >
        {t('offline.sentDismiss')}
      </button>
    </section>
  )
}
