import type { ReactNode } from 'react'
import { labelClass } from '../../components/formStyles.ts'

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
