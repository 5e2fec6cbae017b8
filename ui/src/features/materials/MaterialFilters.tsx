import { useQuery } from '@tanstack/react-query'
import { materialKeys, useDivision } from '../../api/queries.ts'
import { dbGetAll, liveListQuery } from '../../api/db.ts'
import { oldestAsOf } from '../../api/live.ts'
import { AsOf } from '../../components/AsOf.tsx'
import { InfoTip } from '../../components/Tooltip.tsx'
import { t } from '../../i18n/index.ts'
import { str } from '../../lib/shortage.ts'

import type { Show } from './api.ts'

export interface MaterialFilterState {
  search: string
  warehouse: string
  itemGroup: string
  project: string
  show: Show
}

export const NO_MATERIAL_FILTERS: MaterialFilterState = { search: '', warehouse: '', itemGroup: '', project: '', show: 'attention' }

const FIELD = 'flex min-w-40 flex-1 flex-col gap-1 text-sm font-medium'
const CONTROL =
  'min-h-11 rounded border border-slate-300 bg-white px-2 py-2 font-normal focus:border-sky-700 focus:ring-2 focus:ring-sky-600 focus:outline-none'

export function MaterialFilters({ value, onChange }: { value: MaterialFilterState; onChange: (f: MaterialFilterState) => void }) {
  const division = useDivision()
  const warehouses = useQuery({ ...liveListQuery('warehouses', division), staleTime: 10 * 60_000 })
  const groups = useQuery({ ...liveListQuery('itemGroups', division), staleTime: 10 * 60_000 })
  const projects = useQuery({
    queryKey: materialKeys.projects(division),
    queryFn: () =>
      dbGetAll('projects', [
        ['select', 'ID,Code,Description'],
        ['order', 'Code.asc'],
      ]),
    staleTime: 10 * 60_000,
  })
  const set = (patch: Partial<MaterialFilterState>) => onChange({ ...value, ...patch })
  return (
    <div className="flex flex-wrap items-end gap-3">
      {/* first, so its tooltip opens rightwards on any screen */}
      <span className="pb-2">
        <InfoTip label={t('materials.about')} text={t('materials.filtersHelp')} align="start" />
      </span>
      <AsOf asOf={oldestAsOf(warehouses.data?.asOf, groups.data?.asOf)} compact className="w-full" />
      <label className={`${FIELD} min-w-56 flex-[2]`}>
        {t('materials.search')}
        <input
          type="search"
          aria-label={t('materials.search')}
          value={value.search}
          placeholder={t('materials.searchPlaceholder')}
          onChange={(e) => set({ search: e.target.value })}
          className={CONTROL}
        />
      </label>
      <label className={FIELD}>
        {t('materials.warehouse')}
        <select aria-label={t('materials.warehouse')} value={value.warehouse} onChange={(e) => set({ warehouse: e.target.value })} className={CONTROL}>
          <option value="">{t('materials.allWarehouses')}</option>
          {warehouses.data?.rows.map((w) => (
            <option key={w.ID} value={w.ID.toLowerCase()}>
              {w.Code} {w.Description}
            </option>
          ))}
        </select>
      </label>
      <label className={FIELD}>
        {t('materials.itemGroup')}
        <select aria-label={t('materials.itemGroup')} value={value.itemGroup} onChange={(e) => set({ itemGroup: e.target.value })} className={CONTROL}>
          <option value="">{t('materials.allItemGroups')}</option>
          {groups.data?.rows.map((g) => (
            <option key={g.ID} value={g.ID.toLowerCase()}>
              {g.Code} {g.Description}
            </option>
          ))}
        </select>
      </label>
      <label className={FIELD}>
        {t('materials.project')}
        <select aria-label={t('materials.project')} value={value.project} onChange={(e) => set({ project: e.target.value })} className={CONTROL}>
          <option value="">{t('materials.allProjects')}</option>
          {projects.data?.map((p) => (
            <option key={str(p.ID)} value={str(p.ID).toLowerCase()}>
              {str(p.Code)} {str(p.Description)}
            </option>
          ))}
        </select>
      </label>
      <label className={FIELD}>
        {t('materials.show')}
        <select aria-label={t('materials.show')} value={value.show} onChange={(e) => set({ show: e.target.value as Show })} className={CONTROL}>
          <option value="short">{t('materials.show.short')}</option>
          <option value="attention">{t('materials.show.attention')}</option>
          <option value="all">{t('materials.show.all')}</option>
        </select>
      </label>
    </div>
  )
}
