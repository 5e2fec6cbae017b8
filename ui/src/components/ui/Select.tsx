import type { SelectHTMLAttributes } from 'react'
import { inputClass } from './Field.tsx'

export interface Option {
  value: string
  label: string
  disabled?: boolean
}

type Props = SelectHTMLAttributes<HTMLSelectElement> & {
  /** The choices; children, when given, come before them (a prompt, a "none" choice). */
  options?: readonly Option[]
}

/** A select in the forms' look, over a list of value and label pairs. */
export function Select({ options = [], className = inputClass, children, ...rest }: Props) {
  return (
    <select className={className} {...rest}>
      {children}
      {options.map((o) => (
        <option key={o.value} value={o.value} disabled={o.disabled}>
          {o.label}
        </option>
      ))}
    </select>
  )
}
