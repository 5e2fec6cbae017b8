import { t } from '../../i18n/index.ts'

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
