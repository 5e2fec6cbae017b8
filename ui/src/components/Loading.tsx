import { t } from '../i18n/index.ts'

export function Loading() {
  return (
    <p role="status" className="p-6 text-center text-slate-500">
      {t('app.loading')}
    </p>
  )
}
