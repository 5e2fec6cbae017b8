import { t } from '../i18n/index.ts'
import { useIsWide } from '../lib/media.ts'

/** "Stock Manager", or "ESM" under 768 px (spec §1). */
export function BrandName() {
  return <>{useIsWide() ? t('app.name') : t('app.shortName')}</>
}
