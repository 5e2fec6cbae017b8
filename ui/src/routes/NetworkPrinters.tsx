import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { isAdministrator, type Session } from '../api/auth.ts'
import { AdminNotice } from '../components/AdminNotice.tsx'
import { printersQuery, acceptPrinter, withdrawPrinter } from '../api/org.ts'
import { queryKeys } from '../api/queries.ts'
import { hasFullAccess } from '../lib/access.ts'
import { t } from '../i18n/index.ts'
import { labelTypeName } from '../lib/labels.ts'

/**
 * Printers announced on the network. Anything on the LAN can announce itself as a printer, so
 * one found there prints only after an administrator (`isAdministrator`) accepts it.
 */
export function NetworkPrinters({ session }: { session: Session }) {
  const queryClient = useQueryClient()
  const printers = useQuery({ ...printersQuery, enabled: hasFullAccess(session) })
  const refresh = () => queryClient.invalidateQueries({ queryKey: queryKeys.printers })
  const accept = useMutation({ mutationFn: acceptPrinter, onSuccess: refresh })
  const withdraw = useMutation({ mutationFn: withdrawPrinter, onSuccess: refresh })
  const discovered = (printers.data ?? []).filter((p) => p.source === 'discovered')
  const admin = isAdministrator(session)
  const error = accept.error ?? withdraw.error

  return (
    <section className="flex flex-col gap-3 rounded-lg bg-white p-4 shadow" aria-labelledby="gs-network-printers">
      <h2 id="gs-network-printers" className="font-semibold">
        {t('printers.networkTitle')}
      </h2>
      <p className="text-sm text-slate-600">{t('printers.networkIntro')}</p>
      {printers.isSuccess && discovered.length === 0 && <p className="text-sm text-slate-600">{t('printers.noneDiscovered')}</p>}
      {discovered.length > 0 && (
        <ul className="flex flex-col divide-y divide-slate-200">
          {discovered.map((p) => (
            <li key={p.name} className="flex flex-wrap items-center justify-between gap-2 py-2">
              <div className="flex min-w-0 flex-col">
                <span className="font-medium break-words">{p.name}</span>
                <span className="text-sm break-all text-slate-600">{p.uri}</span>
                <span className="text-sm text-slate-600">
                  {p.label_types.length > 0 ? t('labels.printerTypes', { types: p.label_types.map(labelTypeName).join(', ') }) : t('labels.printerAnyType')}
                </span>
                <span className={`text-sm ${p.accepted ? 'text-emerald-800' : 'text-amber-800'}`}>
                  {p.accepted ? t('printers.accepted') : t('printers.waiting')}
                </span>
              </div>
              {admin &&
                (p.accepted ? (
                  <button
                    type="button"
                    onClick={() => withdraw.mutate(p.name)}
                    disabled={withdraw.isPending}
                    className="min-h-11 rounded-md border border-slate-400 px-4 font-medium text-slate-800 disabled:opacity-60"
                  >
                    {t('printers.withdraw', { name: p.name })}
                  </button>
                ) : (
                  <button
                    type="button"
                    onClick={() => accept.mutate(p.name)}
                    disabled={accept.isPending}
                    className="min-h-11 rounded-md bg-sky-800 px-4 font-medium text-white disabled:opacity-60"
                  >
                    {t('printers.accept', { name: p.name })}
                  </button>
                ))}
            </li>
          ))}
        </ul>
      )}
      {discovered.length > 0 && !admin && <AdminNotice session={session} what={t('admin.printers')} />}
      {error && (
        <p role="alert" className="text-sm text-red-700">
          {error.message}
        </p>
      )}
    </section>
  )
}
