import type { ButtonHTMLAttributes } from 'react'

// The button looks the screens share, each string as the screens had it, so moving a screen onto
// Button changes no pixel. `md` is the 44 px touch target of the desktop forms, `lg` the handheld's
// 56 px, `sm` the dense rows of admin tables.
const LOOKS = {
  'primary-md':
    'min-h-11 rounded bg-sky-800 px-4 py-2 font-medium text-white hover:bg-sky-900 focus:ring-2 focus:ring-sky-600 focus:ring-offset-2 focus:outline-none disabled:opacity-50',
  'primary-lg': 'min-h-14 rounded-lg bg-sky-800 px-5 text-lg font-semibold text-white hover:bg-sky-900 disabled:opacity-60',
  'secondary-sm': 'rounded border border-slate-300 px-2 py-1 text-xs hover:bg-slate-100 focus:ring-2 focus:ring-sky-600 focus:outline-none disabled:opacity-50',
  'secondary-md':
    'min-h-11 rounded border border-slate-300 bg-white px-4 py-2 hover:bg-slate-100 focus:ring-2 focus:ring-sky-600 focus:outline-none disabled:opacity-50',
  'secondary-lg': 'min-h-14 rounded-lg border border-slate-400 bg-white px-5 text-lg font-semibold text-slate-800 hover:bg-slate-100',
  'danger-md': 'min-h-11 rounded bg-red-700 px-5 py-2 font-medium text-white hover:bg-red-800 disabled:opacity-50',
  'link-md': 'min-h-11 self-start px-1 text-sm text-red-700 underline hover:text-red-900 disabled:opacity-50',
} as const

export type ButtonLook = keyof typeof LOOKS
export type ButtonVariant = ButtonLook extends `${infer V}-${string}` ? V : never
export type ButtonSize = ButtonLook extends `${string}-${infer S}` ? S : never

export interface ButtonStyle {
  variant?: ButtonVariant
  size?: ButtonSize
  /** Additions to the look: layout (`flex-1`, `self-start`) or a text colour; a new look belongs in LOOKS. */
  className?: string
}

/** The classes of a look, for a link or summary that should look like a button. */
export function buttonClass({ variant = 'secondary', size = 'md', className }: ButtonStyle = {}): string {
  const look = LOOKS[`${variant}-${size}` as ButtonLook]
  if (look === undefined) throw new Error(`no ${variant} button of size ${size}`)
  return className ? `${look} ${className}` : look
}

type Props = ButtonStyle &
  Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'className' | 'type'> & {
    /** Required: a button in a form submits by default, which a missing type hides. */
    type: 'button' | 'submit' | 'reset'
  }

/** A button in one of the shared looks. */
export function Button({ variant, size, className, type, ...rest }: Props) {
  return <button type={type} className={buttonClass({ variant, size, className })} {...rest} />
}
