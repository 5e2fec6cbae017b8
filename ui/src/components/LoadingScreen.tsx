import { useEffect, useState } from 'react'
import { t, type MessageKey } from '../i18n/index.ts'
import { shuffled } from '../lib/shuffle.ts'

/** The spec's loading-screen tips (§2), shown one at a time in random order. */
export const TIPS: readonly MessageKey[] = ['tip.refresh', 'tip.filters', 'tip.tableStock', 'tip.tableSearch', 'tip.tableFirst', 'tip.planning', 'tip.receipts']

const TIP_MS = 6_000

/** A waiting screen with a spinner and a tip that changes every few seconds. */
export function LoadingScreen() {
  const [order] = useState(() => shuffled(TIPS))
  const [i, setI] = useState(0)
  useEffect(() => {
    const id = setInterval(() => setI((n) => (n + 1) % order.length), TIP_MS)
    return () => clearInterval(id)
  }, [order.length])
  return (
    <div role="status" aria-live="polite" className="m-auto flex max-w-lg flex-col items-center gap-4 p-8 text-center">
      <span aria-hidden="true" className="h-10 w-10 animate-spin rounded-full border-4 border-sky-200 border-t-sky-800" />
      <p className="font-medium text-slate-700">{t('app.loading')}</p>
      <p className="text-sm text-slate-500" data-testid="loading-tip">
        <span className="font-semibold">{t('app.loadingTip')}: </span>
        {t(order[i])}
      </p>
    </div>
  )
}
