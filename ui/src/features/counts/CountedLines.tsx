import { useMutation, useQueryClient } from '@tanstack/react-query'
import { countSessionKeys } from '../../api/queries.ts'
import { Section } from '../../components/ui/Section.tsx'
import { t, tCount } from '../../i18n/index.ts'
import { formatServerTime } from '../../lib/dateTime.ts'
import { userMessage } from '../../lib/errors.ts'
import { formatQty } from '../../lib/quantity.ts'
import { removeLine } from './api.ts'
import type { Note } from './CountingPanel.tsx'
import { LINES_SHOWN, newestFirst, type CountLine, type CountSummary } from './logic.ts'
import { Button } from '../../components/ui/Button.tsx'

const placeOf = (l: CountLine) => (l.locationCode ? t('counts.at', { location: l.locationCode }) : '')

/** The lines counted so far, newest first; each can be taken off while the count is open. */
export function CountedLines({ count, onNote }: { count: CountSummary; onNote: (n: Note) => void }) {
  const queryClient = useQueryClient()
  const lines = newestFirst(count.lines ?? [])
  const remove = useMutation({
    mutationFn: (l: CountLine) => removeLine(count.id, l.id),
    onSuccess: (_, l) => {
      onNote({ ok: true, text: t('counts.removedLine', { code: l.itemCode, at: placeOf(l) }) })
      queryClient.setQueryData<CountSummary>(countSessionKeys.one(count.id), (c) => {
        if (!c) return c
        const next = (c.lines ?? []).filter((x) => x.id !== l.id)
        return { ...c, lines: next, lineCount: next.length }
      })
      void queryClient.invalidateQueries({ queryKey: countSessionKeys.one(count.id) })
    },
    onError: (e) => onNote({ ok: false, text: userMessage(e) }),
  })
  return (
    <Section
      title={
        <>
          {t('counts.countedTitle')} <span className="font-normal text-slate-600">({tCount('counts.lines', lines.length)})</span>
        </>
      }
      titleId="counted-title"
    >
      {lines.length === 0 ? (
        <p className="text-slate-600">{t('counts.noLines')}</p>
      ) : (
        <ul className="flex flex-col divide-y divide-slate-100 rounded border border-slate-200" aria-label={t('counts.countedTitle')}>
          {lines.slice(0, LINES_SHOWN).map((l) => (
            <li key={l.id} className="flex items-center justify-between gap-3 px-3 py-2" data-testid="counted-line">
              <span className="flex min-w-0 flex-col">
                <span>
                  <span className="font-mono font-semibold">{l.itemCode}</span>
                  {l.locationCode && <span className="text-slate-600"> · {l.locationCode}</span>}
                  <span className="font-semibold"> · {formatQty(l.quantity)}</span>
                </span>
                <span className="truncate text-sm text-slate-700">{l.itemDescription}</span>
                <span className="text-xs text-slate-500">{t('counts.countedBy', { name: l.countedBy, when: formatServerTime(l.countedMs) })}</span>
              </span>
              {count.status === 'counting' && (
                <Button
                  type="button"
                  variant="secondary"
                  disabled={remove.isPending}
                  aria-label={t('counts.removeLine', { code: l.itemCode, at: placeOf(l) })}
                  onClick={() => remove.mutate(l)}
                >
                  {t('counts.removeShort')}
                </Button>
              )}
            </li>
          ))}
        </ul>
      )}
      {lines.length > LINES_SHOWN && <p className="text-sm text-slate-600">{t('counts.latestOnly', { shown: LINES_SHOWN, total: lines.length })}</p>}
    </Section>
  )
}
