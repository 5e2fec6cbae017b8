import { useRef, useState } from 'react'
import type { Session } from '../api/auth.ts'
import { t } from '../i18n/index.ts'
import { formatServerTime } from '../lib/dateTime.ts'
import { removeBooking, sendWaiting, useBookings, type Booking, type Owner } from '../offline/queue.ts'
import { useBookingSender } from '../offline/sender.ts'
import { ConfirmDialog } from './ConfirmDialog.tsx'

/**
 * "N waiting to send": the bookings kept on this device while the server could not be reached,
 * with what each is, when it was made and why it has not gone yet. They are sent by themselves;
 * the list lets the user send now, see a refusal, or remove one they no longer want.
 */
export function WaitingBookings({ session }: { session: Session }) {
  const owner: Owner = { division: session.division, user: session.userName ?? null, fullName: session.fullName }
  useBookingSender(owner)
  const bookings = useBookings()
  const [open, setOpen] = useState(false)
  const [sending, setSending] = useState(false)
  const [removing, setRemoving] = useState<Booking | null>(null)
  const toggle = useRef<HTMLButtonElement>(null)
  if (bookings.length === 0) return null
  const waiting = bookings.filter((b) => !b.refused).length
  const refused = bookings.length - waiting

  const sendNow = async () => {
    setSending(true)
    try {
      await sendWaiting(owner)
    } finally {
      setSending(false)
    }
  }

  return (
    <section aria-label={t('offline.waitingTitle')} data-testid="waiting-bookings" className="border-b border-amber-300 bg-amber-50 px-3 py-1 text-amber-950">
      <div className="flex flex-wrap items-center gap-2">
        <button
          ref={toggle}
          type="button"
          aria-expanded={open}
          aria-controls="waiting-list"
          onClick={() => setOpen((o) => !o)}
          className="min-h-11 rounded px-2 text-left font-semibold underline-offset-2 hover:underline"
        >
          <span data-testid="waiting-count">{t('offline.waiting', { count: waiting })}</span>
          {refused > 0 && <span className="ml-2 text-red-800">· {t('offline.refusedCount', { count: refused })}</span>}
        </button>
        {open && (
          <button
            type="button"
            onClick={() => void sendNow()}
            disabled={sending}
            className="ml-auto min-h-11 rounded bg-sky-800 px-3 font-medium text-white disabled:opacity-60"
          >
            {sending ? t('offline.sending') : t('offline.sendNow')}
          </button>
        )}
      </div>
      {open && (
        <div id="waiting-list" className="pb-2">
          <p className="mb-2 text-sm">{t('offline.waitingHelp')}</p>
          <ol className="flex flex-col gap-2">
            {bookings.map((b) => (
              <li
                key={b.key}
                data-testid="waiting-booking"
                className="flex flex-wrap items-center gap-x-3 gap-y-1 rounded border border-amber-200 bg-white p-2 text-sm"
              >
                <span className="font-medium text-slate-900">{b.summary}</span>
                <span className="text-slate-700">{t('offline.madeAt', { time: formatServerTime(b.madeAt) })}</span>
                {b.refused ? (
                  <span role="alert" className="text-red-800">
                    {t('offline.refused', { message: b.refused })}
                  </span>
                ) : b.division !== session.division ? (
                  <span className="text-slate-700">{t('offline.otherOrganization', { division: b.division })}</span>
                ) : b.user && b.user !== session.userName ? (
                  <span className="text-slate-700">{t('offline.otherUser', { name: b.userFullName || b.user })}</span>
                ) : (
                  b.lastError && <span className="text-slate-700">{t('offline.notSent', { message: b.lastError })}</span>
                )}
                <button
                  type="button"
                  onClick={() => (b.refused ? void removeBooking(b.key) : setRemoving(b))}
                  className="ml-auto min-h-11 rounded border border-slate-400 px-3 text-slate-800 hover:bg-slate-100"
                >
                  {b.refused ? t('offline.dismiss') : t('offline.remove')}
                </button>
              </li>
            ))}
          </ol>
        </div>
      )}
      {removing && (
        <ConfirmDialog
          message={t('offline.removeConfirm', { summary: removing.summary })}
          noLabel={t('offline.keep')}
          yesLabel={t('offline.remove')}
          onNo={() => setRemoving(null)}
          onYes={() => {
            void removeBooking(removing.key)
            setRemoving(null)
          }}
          returnFocusTo={toggle}
        />
      )}
    </section>
  )
}
