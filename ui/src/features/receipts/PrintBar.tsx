import { t } from '../../i18n/index.ts'
import { Button } from '../../components/ui/Button.tsx'

/**
 * The lines picked for labels, held at the bottom of the screen while the list of receipts runs
 * on below it (on a handheld and a desktop alike): one tap goes to the print panel under the
 * list, however long the list is. Where the list ends it comes to rest just above that panel.
 */
export function PrintBar({ count, onOpen, onClear }: { count: number; onOpen: () => void; onClear: () => void }) {
  return (
    <div
      data-testid="print-bar"
      className="sticky bottom-0 z-20 -mx-3 flex flex-wrap items-center gap-3 border-t border-sky-200 bg-white/95 px-3 pt-2 pb-[max(0.5rem,env(safe-area-inset-bottom))] shadow-[0_-2px_6px_rgba(15,23,42,0.08)] md:mx-0 md:rounded-lg md:border md:px-4"
    >
      {/* first in the bar: the desktop's sync cards float over the bottom right corner */}
      <Button type="button" variant="primary" onClick={onOpen}>
        {t('receipts.printBar', { count })}
      </Button>
      <Button type="button" variant="secondary" onClick={onClear}>
        {t('receipts.clearPicked')}
      </Button>
    </div>
  )
}
