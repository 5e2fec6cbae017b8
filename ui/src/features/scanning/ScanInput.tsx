import { useEffect, useRef, useState, type FormEvent } from 'react'
import { t } from '../../i18n/index.ts'
import { cleanScan, scanGate } from '../../lib/scan.ts'

/** Elements where the user is typing on purpose; the scan field does not steal focus from them. */
function isEditing(el: Element | null): boolean {
  return !!el && el !== document.body && /^(INPUT|SELECT|TEXTAREA)$/.test(el.tagName)
}

/**
 * The one scan field. Keyboard-wedge scanners type the code and Enter into it; it takes the
 * focus back whenever nothing else holds it, so a scan never lands nowhere. The same code again
 * within 100 ms is a bounce and is dropped.
 */
export function ScanInput({ onScan, busy }: { onScan: (code: string) => void; busy: boolean }) {
  const ref = useRef<HTMLInputElement>(null)
  const gate = useRef(scanGate())
  const [value, setValue] = useState('')

  useEffect(() => {
    ref.current?.focus()
    const refocus = () => {
      // after the click or blur has settled, unless the user went to another field
      setTimeout(() => {
        if (!isEditing(document.activeElement)) ref.current?.focus({ preventScroll: true })
      }, 0)
    }
    document.addEventListener('focusout', refocus)
    document.addEventListener('click', refocus)
    return () => {
      document.removeEventListener('focusout', refocus)
      document.removeEventListener('click', refocus)
    }
  }, [])

  const submit = (e: FormEvent) => {
    e.preventDefault()
    const code = cleanScan(value)
    setValue('')
    if (code && gate.current.accept(code, performance.now())) onScan(code)
  }

  return (
    <form onSubmit={submit} className="flex gap-2">
      <label htmlFor="scan-input" className="sr-only">
        {t('scanning.inputLabel')}
      </label>
      <input
        id="scan-input"
        ref={ref}
        value={value}
        onChange={(e) => setValue(e.target.value)}
        autoComplete="off"
        autoCapitalize="off"
        spellCheck={false}
        enterKeyHint="search"
        placeholder={t('scanning.inputPlaceholder')}
        aria-busy={busy}
        className="min-h-14 w-full flex-1 rounded-lg border-2 border-sky-700 px-4 text-lg focus:ring-4 focus:ring-sky-300 focus:outline-none"
      />
      <button type="submit" className="min-h-14 rounded-lg bg-sky-800 px-5 text-lg font-medium text-white">
        {t('scanning.go')}
      </button>
    </form>
  )
}
