// Messages in the user's language: English or Dutch. The language comes from the user's own
// choice (AccountSettings, remembered in this browser and in their preferences), else from
// the browser. Changing it re-renders the app (see LanguageRoot in main.tsx).
import { useSyncExternalStore } from 'react'
import { en, type Catalogue, type MessageKey } from './messages.ts'
import { nl } from './messages.nl.ts'

export type { MessageKey }

export const LANGUAGES = ['en', 'nl'] as const
export type Language = (typeof LANGUAGES)[number]

const catalogues: Record<Language, Catalogue> = { en, nl }

/** localStorage key of the language chosen in this browser (kept over logout). */
export const LANGUAGE_KEY = 'esm.language'

export function isLanguage(v: unknown): v is Language {
  return typeof v === 'string' && (LANGUAGES as readonly string[]).includes(v)
}

/** The first of the browser's languages we have, else English. */
export function detectLanguage(preferred: readonly string[]): Language {
  for (const tag of preferred) {
    const base = tag.toLowerCase().split('-')[0]
    if (isLanguage(base)) return base
  }
  return 'en'
}

function initialLanguage(): Language {
  try {
    const stored = globalThis.localStorage?.getItem(LANGUAGE_KEY)
    if (isLanguage(stored)) return stored
  } catch {
    // storage blocked
  }
  const nav = globalThis.navigator
  return detectLanguage(nav ? (nav.languages?.length ? nav.languages : [nav.language]) : [])
}

let current: Language = initialLanguage()
const listeners = new Set<() => void>()

export function getLanguage(): Language {
  return current
}

/** Switches the language; `remember` keeps the choice in this browser. */
export function setLanguage(lang: Language, remember = true): void {
  if (remember) {
    try {
      localStorage.setItem(LANGUAGE_KEY, lang)
    } catch {
      // storage blocked: the choice lasts for this page
    }
  }
  if (lang === current) return
  current = lang
  if (typeof document !== 'undefined') document.documentElement.lang = lang
  listeners.forEach((l) => l())
}

export function useLanguage(): Language {
  return useSyncExternalStore(
    (onChange) => {
      listeners.add(onChange)
      return () => listeners.delete(onChange)
    },
    () => current,
  )
}

/** The locale for numbers and dates in the current language. */
export function locale(): string {
  return current === 'nl' ? 'nl-NL' : 'en-GB'
}

type Params = Record<string, string | number>

/**
 * Placeholders that hold an amount of things ("3,554 open lines"): a number given for one is
 * written with the language's thousands mark. Any other number (an order's number, a year)
 * stays as it is.
 */
const AMOUNTS: ReadonlySet<string> = new Set(['count', 'total', 'shown', 'lines', 'orders', 'late', 'items'])

/** The message for `key` with `{name}` placeholders filled from `params`. */
export function t(key: MessageKey, params?: Params): string {
  const text: string = catalogues[current][key] ?? en[key]
  if (!params) return text
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => {
    if (!(name in params)) return whole
    const v = params[name]
    return typeof v === 'number' && AMOUNTS.has(name) ? v.toLocaleString(locale()) : String(v)
  })
}

type PluralBase<K> = K extends `${infer B}.one` ? B : never
export type PluralKey = PluralBase<MessageKey>

/** Chooses the `.one` or `.other` form by `count` and fills `{count}`. */
export function tCount(key: PluralKey, count: number, params?: Params): string {
  const form = (count === 1 ? `${key}.one` : `${key}.other`) as MessageKey
  return t(form, { ...params, count: count.toLocaleString(locale()) })
}
