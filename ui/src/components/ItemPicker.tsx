import { useMutation } from '@tanstack/react-query'
import { useRef, useState } from 'react'
import { findItems, type FoundItem } from '../api/items.ts'
import { inputClass, labelClass } from './ui/Field.tsx'
import { t } from '../i18n/index.ts'
import { classifyScan, cleanScan, type LocationRef } from '../lib/scan.ts'
import { userMessage } from '../lib/errors.ts'
import { Button } from './ui/Button.tsx'

/**
 * The transfer's scan box: an item (an exact code or barcode is taken at once, else candidates to
 * tap) or a storage location's code, read as every scan box reads it. It stays after the item is
 * chosen, focused, so the next scans (from, then to) land in it.
 */
export function ItemPicker({
  item,
  onItem,
  locations,
  onLocation,
  id,
  placeholder,
}: {
  item: FoundItem | null
  onItem: (i: FoundItem | null) => void
  /** The storage locations a scan may name. */
  locations: readonly LocationRef[]
  onLocation: (l: LocationRef) => void
  /** The box's id, for a screen that moves the focus back to it. */
  id?: string
  /** What the box asks for, where a screen scans for something else than a transfer. */
  placeholder?: string
}) {
  const [typed, setTyped] = useState('')
  const [notCode, setNotCode] = useState<string | null>(null)
  const box = useRef<HTMLInputElement>(null)
  const find = useMutation({
    mutationFn: findItems,
    onSuccess: (found) => {
      if (found.length === 1) {
        onItem(found[0])
        setTyped('')
      }
    },
  })

  const submit = () => {
    const code = cleanScan(typed)
    if (!code) return
    setNotCode(null)
    const kind = classifyScan(code, locations)
    if (kind.kind === 'location') {
      find.reset()
      onLocation(kind.location)
      setTyped('')
    } else if (kind.kind === 'shopOrder' || kind.kind === 'purchaseOrder') {
      find.reset()
      setNotCode(code)
    } else find.mutate(code)
    box.current?.focus()
  }

  const candidates = find.data && find.data.length > 1 ? find.data : []
  return (
    <div className="flex flex-col gap-2">
      <form
        className="flex flex-col gap-2"
        onSubmit={(e) => {
          e.preventDefault()
          submit()
        }}
      >
        <label className={labelClass}>
          {t('transfers.item')}
          <span className="flex gap-2">
            <input
              ref={box}
              id={id}
              className={inputClass}
              autoFocus
              value={typed}
              onChange={(e) => setTyped(e.target.value)}
              placeholder={placeholder ?? (item ? t('transfers.locationPlaceholder') : t('transfers.itemPlaceholder'))}
              enterKeyHint="search"
            />
            <Button type="submit" variant="secondary" disabled={!typed.trim() || find.isPending}>
              {t('transfers.find')}
            </Button>
          </span>
        </label>
        {notCode && (
          <p role="alert" className="text-sm text-red-700">
            {t('transfers.notItemOrLocation', { text: notCode })}
          </p>
        )}
        {find.isSuccess && find.data.length === 0 && (
          <p role="alert" className="text-sm text-red-700">
            {t('transfers.noItem', { text: find.variables })}
          </p>
        )}
        {find.error && (
          <p role="alert" className="text-sm text-red-700">
            {userMessage(find.error)}
          </p>
        )}
        {candidates.length > 0 && (
          <ul className="flex flex-col divide-y divide-slate-100 rounded border border-slate-200" aria-label={t('transfers.candidates')}>
            {candidates.map((c) => (
              <li key={c.ID}>
                <button
                  type="button"
                  className="flex min-h-11 w-full flex-col px-3 py-2 text-left hover:bg-slate-50"
                  onClick={() => {
                    onItem(c)
                    find.reset()
                    setTyped('')
                  }}
                >
                  <span className="font-mono text-sm font-semibold">{c.Code}</span>
                  <span className="text-sm text-slate-700">{c.Description}</span>
                </button>
              </li>
            ))}
          </ul>
        )}
      </form>
      {item && (
        <div className="flex items-center justify-between gap-3 rounded border border-sky-200 bg-sky-50 p-3" data-testid="transfer-item">
          <span className="flex min-w-0 flex-col">
            <span className="font-mono font-semibold">{item.Code}</span>
            <span className="text-sm text-slate-700">{item.Description}</span>
          </span>
          <Button type="button" variant="secondary" onClick={() => onItem(null)}>
            {t('transfers.otherItem')}
          </Button>
        </div>
      )}
    </div>
  )
}
