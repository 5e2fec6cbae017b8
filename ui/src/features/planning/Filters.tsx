import { useId } from 'react'
import { t, type MessageKey } from '../../i18n/index.ts'
import type { PlanningFilters } from './logic/filters.ts'
import { VIEWS, type View } from './logic/timeline.ts'
import { InfoTip } from '../../components/Tooltip.tsx'

export interface Option {
  ID: string
  Code: string
  Description: string
}

const field = 'flex min-w-0 flex-col gap-1 text-xs font-medium text-slate-700'
const control =
  'min-h-11 rounded border border-slate-300 bg-white px-2 text-sm font-normal focus:border-sky-700 focus:ring-2 focus:ring-sky-600 focus:outline-none'

function Select({
  label,
  value,
  options,
  onChange,
  error,
}: {
  label: MessageKey
  value: string
  options: Option[] | undefined
  onChange: (v: string) => void
  error: boolean
}) {
  // A set width: a select sized to its longest option measures every option's text, 190 ms of
  // layout for the 3,500 projects at scale large, on each render that moves the filters.
  return (
    <label className={`${field} md:w-52`}>
      {t(label)}
      <select value={value} onChange={(e) => onChange(e.target.value)} className={`${control} w-full`} aria-invalid={error}>
        <option value="">{error ? t('planning.filter.unavailable') : t('planning.filter.all')}</option>
        {options?.map((o) => (
          <option key={o.ID} value={o.ID}>
            {o.Code ? `${o.Code} · ${o.Description}` : o.Description}
          </option>
        ))}
      </select>
    </label>
  )
}

export interface FilterLists {
  warehouses?: Option[]
  selectionCodes?: Option[]
  projects?: Option[]
  itemGroups?: Option[]
  failed: Set<'warehouses' | 'selectionCodes' | 'projects' | 'itemGroups'>
}

/** Search, the four filters and the view (days, weeks, months). */
export function Filters({
  filters,
  onFilters,
  lists,
  view,
  onView,
}: {
  filters: PlanningFilters
  onFilters: (f: PlanningFilters) => void
  lists: FilterLists
  view: View
  onView: (v: View) => void
}) {
  const searchId = useId()
  const set = (k: keyof PlanningFilters) => (v: string) => onFilters({ ...filters, [k]: v })
  return (
    <div className="grid grid-cols-2 items-end gap-2 md:flex md:flex-wrap">
      <div className={`${field} col-span-2 md:w-56`}>
        <span className="flex items-center gap-2">
          <label htmlFor={searchId}>{t('planning.search')}</label>
          <InfoTip label={t('planning.filtersHelpLabel')} text={t('planning.filtersHelp')} />
        </span>
        <input
          id={searchId}
          type="search"
          value={filters.search}
          onChange={(e) => set('search')(e.target.value)}
          placeholder={t('planning.searchPlaceholder')}
          className={control}
        />
      </div>
      <Select
        label="planning.filter.warehouse"
        value={filters.warehouse}
        options={lists.warehouses}
        onChange={set('warehouse')}
        error={lists.failed.has('warehouses')}
      />
      <Select
        label="planning.filter.selectionCode"
        value={filters.selectionCode}
        options={lists.selectionCodes}
        onChange={set('selectionCode')}
        error={lists.failed.has('selectionCodes')}
      />
      <Select label="planning.filter.project" value={filters.project} options={lists.projects} onChange={set('project')} error={lists.failed.has('projects')} />
      <Select
        label="planning.filter.itemGroup"
        value={filters.itemGroup}
        options={lists.itemGroups}
        onChange={set('itemGroup')}
        error={lists.failed.has('itemGroups')}
      />
      <div role="radiogroup" aria-label={t('planning.view')} className="col-span-2 flex rounded border border-slate-300 bg-white md:col-span-1">
        {VIEWS.map((v) => (
          <button
            key={v}
            type="button"
            role="radio"
            aria-checked={view === v}
            onClick={() => onView(v)}
            className={`min-h-11 flex-1 px-3 text-sm first:rounded-l last:rounded-r focus:ring-2 focus:ring-sky-600 focus:outline-none ${
              view === v ? 'bg-sky-800 text-white' : 'hover:bg-slate-100'
            }`}
          >
            {t(`planning.view.${v}`)}
          </button>
        ))}
      </div>
    </div>
  )
}
