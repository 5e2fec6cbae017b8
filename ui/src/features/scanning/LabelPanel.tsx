import type { LabelSource } from '../../api/labels.ts'
import { LabelActions, type LabelStyles } from '../../components/LabelActions.tsx'
import { signal } from '../../lib/feedback.ts'
import { control, field } from '../../components/scanFields.tsx'
import { buttonClass } from '../../components/ui/Button.tsx'

/** The shared label buttons at the handheld's size. */
const HANDHELD: LabelStyles = {
  section: 'flex flex-col gap-3 rounded-lg border border-sky-200 bg-sky-50/40 p-3',
  title: 'text-lg font-semibold text-sky-900',
  field,
  control,
  primary: buttonClass({ variant: 'primary', size: 'lg' }),
  secondary: buttonClass({ variant: 'primary', size: 'lg' }),
}

/**
 * Labels of one record from the handheld (the scanned item, or a shop order): as a PDF in a new
 * tab, or straight to a label printer, with a sound for the outcome.
 */
export function LabelPanel({ source, id, title }: { source: LabelSource; id: string; title: string }) {
  return <LabelActions source={source} ids={[id]} title={title} styles={HANDHELD} onOutcome={signal} />
}
