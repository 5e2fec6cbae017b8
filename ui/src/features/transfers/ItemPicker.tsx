import { useMutation } from '@tanstack/react-query'
import { useState } from 'react'
import { findItems, type FoundItem } from './api.ts'
import { inputClass, labelClass, secondaryButton } from '../../components/formStyles.ts'
import { t } from '../../i18n/index.ts'

/** Scan or type an item: an exact code or barcode is taken at once, else candidates to tap. */
export function ItemPicker({ item, onItem }: { item: FoundItem | null; onItem: (i: FoundItem | null) => void }) {
  const [typed, setTyped] = useState('')
  const find = useMutation({
    mutationFn: findItems,
    onSuccess: (found) => {
      if (found.length === 1) {
        onItem(found[0])
        setTyped('')
      }
    },
  })

  if (item) {
    return (
      <div className="flex items-center justify-between gap-3 rounded border border-sky-200 bg-sky-50 p-3" data-testid="transfer-item">
        <span className="flex min-w-0 flex-col">
          <span className="font-mono font-semibold">{item.Code}</span>
          <span className="text-sm text-slate-700">{item.Description}</span>
        </span>
        <button type="button" className={secondaryButton} onClick={() => onItem(null)}>
          {t('transfers.otherItem')}
        </button>
      </div>
    )
  }
  const candidates = find.data && find.data.length > 1 ? find.data : []
  return (
    <form
      className="flex flex-col gap-2"
      onSubmit={(e) => {
        e.preventDefault()
        if (typed.trim()) find.mutate(typed)
      }}
    >
      <label className={labelClass}>
        {t('transfers.item')}
        <span className="flex gap-2">
          <input
            className={inputClass}
            autoFocus
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            placeholder={t('transfers.itemPlaceholder')}
            enterKeyHint="search"
          />
          <button type="submit" className={secondaryButton} disabled={!typed.trim() || find.isPending}>
            {t('transfers.find')}
          </button>
        </span>
      </label>
      {find.isSuccess && find.data.length === 0 && (
        <p role="alert" className="text-sm text-red-700">
          {t('transfers.noItem', { text: find.variables })}
        </p>
      )}
      {find.error && (
        <p role="alert" className="text-sm text-red-700">
          {find.error.message}
        </p>
      )}
      {candidates.length > 0 && (
        <ul className="flex flex-col divide-y divide-slate-100 rounded border border-slate-200" aria-label={t('transfers.candidates')}>
          {candidates.map((c) => (
            <li key={c.ID}>
              <button type="button" className="flex min-h-11 w-full flex-col px-3 py-2 text-left hover:bg-slate-50" onClick={() => onItem(c)}>
                <span className="font-mono text-sm font-semibold">{c.Code}</span>
                <span className="text-sm text-slate-700">{c.Description}</span>
              </button>
            </li>
          ))}
        </ul>
      )}
    </form>
  )
}
