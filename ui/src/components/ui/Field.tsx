import { useId, type ReactNode } from 'react'

// The label column of the forms, and the control inside a field.
export const labelClass = 'flex flex-col gap-1 text-sm font-medium text-slate-700'
export const inputClass = 'min-h-11 w-full rounded border border-slate-300 bg-white px-3 py-2 text-base focus:ring-2 focus:ring-sky-600 focus:outline-none'

/** What a field hands its control: the id its label points at and the texts that describe it. */
export interface ControlProps {
  id: string
  'aria-describedby'?: string
  'aria-invalid'?: true
}

interface Props {
  label: ReactNode
  /** The control's id; one is made when the control has none of its own. */
  id?: string
  /** A hint under the control, read with it. */
  help?: ReactNode
  /** What is wrong with the value, read with the control, which is then marked invalid. */
  error?: ReactNode
  className?: string
  /** The control: given the id and descriptions as props to spread on it. */
  children: (control: ControlProps) => ReactNode
}

/**
 * A label and its control side by side in the markup (not wrapped), so the control is named by the
 * label alone and not by the options of a select inside it; help and error are tied to the control
 * with aria-describedby.
 */
export function Field({ label, id, help, error, className = labelClass, children }: Props) {
  const own = useId()
  const controlId = id ?? own
  const helpId = `${controlId}-help`
  const errorId = `${controlId}-error`
  const described = [help ? helpId : null, error ? errorId : null].filter(Boolean).join(' ')
  return (
    <div className={className}>
      <label htmlFor={controlId}>{label}</label>
      {children({ id: controlId, ...(described ? { 'aria-describedby': described } : {}), ...(error ? { 'aria-invalid': true } : {}) })}
      {help && (
        <p id={helpId} className="text-xs font-normal text-slate-500">
          {help}
        </p>
      )}
      {error && (
        <p id={errorId} className="text-sm font-normal text-red-700">
          {error}
        </p>
      )}
    </div>
  )
}
