import { en, type Catalogue, type MessageKey } from './messages.ts'

export type { MessageKey }

const catalogue: Catalogue = en

type Params = Record<string, string | number>

/** The message for `key` with `{name}` placeholders filled from `params`. */
export function t(key: MessageKey, params?: Params): string {
  const text: string = catalogue[key]
  if (!params) return text
  return text.replace(/\{(\w+)\}/g, (whole, name: string) => (name in params ? String(params[name]) : whole))
}

type PluralBase<K> = K extends `${infer B}.one` ? B : never
export type PluralKey = PluralBase<MessageKey>

/** Chooses the `.one` or `.other` form by `count` and fills `{count}`. */
export function tCount(key: PluralKey, count: number, params?: Params): string {
  const form = (count === 1 ? `${key}.one` : `${key}.other`) as MessageKey
  return t(form, { ...params, count })
}
