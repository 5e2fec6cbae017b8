import type { ReactNode } from 'react'
import { labelClass } from '../../components/ui/Field.tsx'
import { t } from '../../i18n/index.ts'

/**
 * A label and its control side by side in the markup (not wrapped), so the control is named by
 * the label alone and not by the options of a select inside it.
 */
export function Field({ id, label, children }: { id: string; label: string; children: ReactNode }) {
  return (
    <div className={labelClass}>
      <label htmlFor={id}>{label}</label>
      {children}
    </div>
  )
}

/** A row of a live list a select offers: its id, code and description. */
export interface Choice {
  ID: string
  Code: string | null
  Description?: string | null
}

/**
 * A select's options over a live list: first the prompt (or "Loading…" while the list loads),
 * then one option per row, "Code Description", valued by its lower-case id as the counts compare.
 */
export function ChoiceOptions({ rows, pending, prompt }: { rows: readonly Choice[]; pending: boolean; prompt: string }) {
  return (
    <>
      <option value="">{pending ? t('counts.loadingList') : prompt}</option>
      {rows.map((r) => (
        <option key={r.ID} value={r.ID.toLowerCase()}>
          {[r.Code, r.Description].filter(Boolean).join(' ')}
        </option>
      ))}
    </>
  )
}
