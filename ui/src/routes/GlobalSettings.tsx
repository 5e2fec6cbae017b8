import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { useState, type FormEvent } from 'react'
import type { Session } from '../api/auth.ts'
import { printersQuery, getOrganizationAccounts, updateOrganizationPreferences, usablePrinters, type OrgAccount } from '../api/org.ts'
import { queryKeys, useDivision, useSession } from '../api/queries.ts'
import { liveListQuery } from '../api/db.ts'
import { LoadingScreen } from '../components/LoadingScreen.tsx'
import { NetworkPrinters } from './NetworkPrinters.tsx'
import { SignedInUsers } from './SignedInUsers.tsx'
import { AdminNotice } from '../components/AdminNotice.tsx'
import { isAdministrator } from '../api/auth.ts'
import { t } from '../i18n/index.ts'
import { hasFullAccess } from '../lib/access.ts'
import { LABEL_TYPES, labelTypeName } from '../lib/labels.ts'
import { userMessage } from '../lib/errors.ts'
import { readSettings, toSave, type OrgSettings } from '../lib/orgSettings.ts'

/** "Full Name (userName)", marked when Exact Online wants that user to sign in again. */
export function accountLabel(a: OrgAccount): string {
  const name = a.fullName ? t('global.syncAccountOption', { fullName: a.fullName, userName: a.userName }) : a.userName
  return a.access === 'signInNeeded' ? t('global.syncAccountSignInNeeded', { account: name }) : name
}

/** One code in or out of the list, keeping the list's order. */
export function toggled(codes: readonly string[], code: string, on: boolean): string[] {
  return on ? (codes.includes(code) ? [...codes] : [...codes, code]) : codes.filter((c) => c !== code)
}

/**
 * The warehouses whose stock is left off labels, ticked from the organization's warehouses; a
 * kept code Exact Online no longer has stays listed (ticked) so it can be taken off.
 */
function SkippedWarehouses({ codes, onChange }: { codes: readonly string[]; onChange: (codes: string[]) => void }) {
  const division = useDivision()
  const warehouses = useQuery({ ...liveListQuery('warehouses', division), staleTime: 10 * 60_000 })
  const rows = (warehouses.data?.rows ?? [])
    .map((w) => ({ code: typeof w.Code === 'string' ? w.Code.trim() : '', description: typeof w.Description === 'string' ? w.Description : '' }))
    .filter((w) => w.code !== '')
  const gone = warehouses.data ? codes.filter((c) => !rows.some((w) => w.code === c)) : [...codes]
  const box = (code: string, text: string) => (
    <label key={code} className="flex items-center gap-2 text-sm font-normal">
      <input type="checkbox" checked={codes.includes(code)} onChange={(e) => onChange(toggled(codes, code, e.target.checked))} />
      {text}
    </label>
  )
  return (
    <fieldset className="flex flex-col gap-1" aria-describedby="gs-skipped-help">
      <legend className="text-sm font-medium">{t('global.skippedWarehouses')}</legend>
      <p id="gs-skipped-help" className="text-sm text-slate-500">
        {t('global.skippedWarehousesHelp')}
      </p>
      <div className="grid gap-1 sm:grid-cols-2">
        {rows.map((w) => box(w.code, w.description ? `${w.code} ${w.description}` : w.code))}
        {gone.map((c) => box(c, warehouses.data ? t('global.skippedWarehouseGone', { code: c }) : c))}
      </div>
      {warehouses.isPending && <p className="text-sm text-slate-500">{t('global.warehousesLoading')}</p>}
      {warehouses.isError && (
        <p role="alert" className="text-sm text-red-700">
          {t('global.warehousesFailed', { message: userMessage(warehouses.error) })}
        </p>
      )}
    </fieldset>
  )
}

function Form({ session }: { session: Session }) {
  const queryClient = useQueryClient()
  const prefs = session.organizationDetails.preferences
  const intervalDefault = session.syncIntervalDefault ?? 15
  const [form, setForm] = useState<OrgSettings>(() => readSettings(prefs, intervalDefault))
  const printers = useQuery({ ...printersQuery, enabled: hasFullAccess(session) })
  const accounts = useQuery({
    queryKey: queryKeys.organizationAccounts(session.division),
    queryFn: getOrganizationAccounts,
    enabled: hasFullAccess(session),
    retry: false,
  })
  const save = useMutation({
    // unknown keys other screens keep in the preferences are carried over
    mutationFn: () => updateOrganizationPreferences(session.organizationDetails.uuid, toSave(prefs, form, intervalDefault)),
    onSuccess: (details) => {
      queryClient.setQueryData<Session>(queryKeys.session, (s) => (s ? { ...s, organizationDetails: details } : s))
    },
  })
  const intervalOk = Number.isInteger(form.sync_interval_minutes) && form.sync_interval_minutes >= 0 && form.sync_interval_minutes <= 1440
  const copiesOk = Number.isInteger(form.label_copies) && form.label_copies >= 1 && form.label_copies <= 100

  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (intervalOk && copiesOk) save.mutate()
  }
  const field = 'flex flex-col gap-1 text-sm font-medium'
  const input = 'rounded border border-slate-300 px-2 py-2 font-normal focus:border-sky-700 focus:ring-2 focus:ring-sky-600 focus:outline-none'
  const section = 'flex flex-col gap-3 rounded-lg bg-white p-4 shadow'
  const labelSelect = (key: 'label_type_shop_order' | 'label_type_item' | 'label_type_receipt', label: string) => (
    <label className={field}>
      {label}
      <select value={form[key]} onChange={(e) => setForm({ ...form, [key]: e.target.value })} className={input}>
        {LABEL_TYPES.map((lt) => (
          <option key={lt} value={lt}>
            {labelTypeName(lt)}
          </option>
        ))}
      </select>
    </label>
  )

  // everybody sees the settings; only an administrator changes them
  const readOnly = !isAdministrator(session)
  return (
    <form onSubmit={submit} onChange={() => save.reset()} className="flex flex-col gap-4">
      {readOnly && <AdminNotice session={session} what={t('admin.settings')} />}
      <fieldset disabled={readOnly} className="contents">
        <section className={section} aria-labelledby="gs-planning">
          <h2 id="gs-planning" className="font-semibold">
            {t('global.planning')}
          </h2>
          <label className="flex items-center gap-2 text-sm">
            <input type="checkbox" checked={form.weekends_disabled} onChange={(e) => setForm({ ...form, weekends_disabled: e.target.checked })} />
            {t('global.weekendsDisabled')}
          </label>
        </section>
        <section className={section} aria-labelledby="gs-sync">
          <h2 id="gs-sync" className="font-semibold">
            {t('global.sync')}
          </h2>
          <label className={field}>
            {t('global.syncInterval')}
            <input
              type="number"
              min={0}
              max={1440}
              step={1}
              value={Number.isNaN(form.sync_interval_minutes) ? '' : form.sync_interval_minutes}
              onChange={(e) => setForm({ ...form, sync_interval_minutes: e.target.valueAsNumber })}
              aria-invalid={!intervalOk}
              className={`${input} w-32`}
            />
          </label>
          <p className="text-sm text-slate-600">{t('global.syncIntervalDefault', { minutes: intervalDefault })}</p>
          {!intervalOk && (
            <p role="alert" className="text-sm text-red-700">
              {t('global.invalidInterval')}
            </p>
          )}
          <label className={field}>
            {t('global.syncAccount')}
            <select
              value={form.sync_account}
              onChange={(e) => setForm({ ...form, sync_account: e.target.value })}
              aria-describedby="gs-sync-account-help"
              className={input}
            >
              <option value="">{t('global.syncAccountAuto')}</option>
              {accounts.data?.accounts.map((a) => (
                <option key={a.user} value={a.user}>
                  {accountLabel(a)}
                </option>
              ))}
              {form.sync_account && !accounts.data?.accounts.some((a) => a.user === form.sync_account) && (
                <option value={form.sync_account}>{form.sync_account}</option>
              )}
            </select>
          </label>
          <p id="gs-sync-account-help" className="text-sm text-slate-600">
            {t('global.syncAccountHelp')}
          </p>
          {accounts.error && (
            <p role="alert" className="text-sm text-red-700">
              {t('global.syncAccountsFailed', { message: userMessage(accounts.error) })}
            </p>
          )}
        </section>
        <section className={section} aria-labelledby="gs-labels">
          <h2 id="gs-labels" className="font-semibold">
            {t('global.labels')}
          </h2>
          <label className={field}>
            {t('global.defaultPrinter')}
            <select value={form.default_printer} onChange={(e) => setForm({ ...form, default_printer: e.target.value })} className={input}>
              <option value="">{t('global.noPrinter')}</option>
              {usablePrinters(printers.data).map((p) => (
                <option key={p.name} value={p.name}>
                  {p.state ? t('global.printerState', { name: p.name, state: p.state }) : p.name}
                </option>
              ))}
              {form.default_printer && !printers.data?.some((p) => p.name === form.default_printer) && (
                <option value={form.default_printer}>{form.default_printer}</option>
              )}
            </select>
          </label>
          {printers.data?.length === 0 && <p className="text-sm text-slate-500">{t('global.noPrinters')}</p>}
          <div className="grid gap-3 md:grid-cols-3">
            {labelSelect('label_type_shop_order', t('global.labelShopOrder'))}
            {labelSelect('label_type_item', t('global.labelItem'))}
            {labelSelect('label_type_receipt', t('global.labelReceipt'))}
          </div>
          <label className={field}>
            {t('global.copies')}
            <input
              type="number"
              min={1}
              max={100}
              step={1}
              value={Number.isNaN(form.label_copies) ? '' : form.label_copies}
              onChange={(e) => setForm({ ...form, label_copies: e.target.valueAsNumber })}
              aria-invalid={!copiesOk}
              className={`${input} w-32`}
            />
          </label>
          {!copiesOk && (
            <p role="alert" className="text-sm text-red-700">
              {t('global.invalidCopies')}
            </p>
          )}
          <SkippedWarehouses codes={form.label_skipped_warehouses} onChange={(label_skipped_warehouses) => setForm({ ...form, label_skipped_warehouses })} />
        </section>
      </fieldset>
      {!readOnly && (
        <div className="flex items-center gap-3">
          <button
            type="submit"
            disabled={save.isPending || !intervalOk || !copiesOk}
            className="rounded-md bg-sky-800 px-4 py-2 font-medium text-white hover:bg-sky-900 disabled:opacity-60"
          >
            {save.isPending ? t('settings.saving') : t('settings.save')}
          </button>
          {save.isSuccess && (
            <p role="status" className="text-sm text-emerald-700">
              {t('settings.saved')}
            </p>
          )}
          {save.isError && (
            <p role="alert" className="text-sm text-red-700">
              {userMessage(save.error)}
            </p>
          )}
        </div>
      )}
    </form>
  )
}

/** The organization's shared preferences: planning weekends, sync schedule, printers and labels. */
export default function GlobalSettings() {
  const { data: session } = useSession()
  if (!session) return <LoadingScreen />
  return (
    <div className="mx-auto flex w-full max-w-3xl flex-col gap-4 p-4 md:p-6">
      <div>
        <h1 className="text-2xl font-bold text-sky-900">{t('global.title')}</h1>
        <p className="text-slate-600">{t('global.intro', { organization: session.organizationDetails.name || session.customer_name || '' })}</p>
      </div>
      <Form session={session} />
      <NetworkPrinters session={session} />
      {isAdministrator(session) && <SignedInUsers session={session} />}
    </div>
  )
}
