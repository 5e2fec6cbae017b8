import type { ShopOrder } from './api.ts'
import { LabelActions, type LabelStyles } from '../../components/LabelActions.tsx'
import { inputClass, labelClass } from '../../components/ui/Field.tsx'
import { buttonClass } from '../../components/ui/Button.tsx'
import { t } from '../../i18n/index.ts'

const MODAL: LabelStyles = {
  section: 'flex flex-col gap-2 border-t border-slate-200 pt-3',
  title: 'font-semibold',
  field: `${labelClass} md:w-80`,
  control: inputClass,
  primary: buttonClass({ variant: 'primary', className: 'w-fit' }),
  secondary: buttonClass({ className: 'w-fit' }),
}

/** The shop order's labels (what it makes and its by-products), from the shop order window. */
export function ShopOrderLabels({ order }: { order: ShopOrder }) {
  return <LabelActions source="shop_order" ids={[order.ID]} title={t('labels.shopOrderTitle', { number: order.ShopOrderNumber })} styles={MODAL} />
}
