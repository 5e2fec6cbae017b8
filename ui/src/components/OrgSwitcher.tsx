import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useLocation, useNavigate } from 'react-router'
import { switchDivision, type Session } from '../api/auth.ts'
import { queryKeys } from '../api/queries.ts'
import { t } from '../i18n/index.ts'

/** Switches between the organizations (divisions) of the signed-in user's Exact account. */
export function OrgSwitcher({ session }: { session: Session }) {
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const { pathname } = useLocation()
  const mutation = useMutation({
    mutationFn: switchDivision,
    onSuccess: async (next) => {
      queryClient.setQueryData(queryKeys.session, next)
      // everything cached belongs to the previous organization
      await queryClient.invalidateQueries()
      navigate(`${pathname}?division=${next.division}`, { replace: true })
    },
  })

  if (session.divisions.length < 2) return null
  return (
    <select
      aria-label={t('nav.organization')}
      value={session.division}
      disabled={mutation.isPending}
      onChange={(e) => mutation.mutate(Number(e.target.value))}
      className="max-w-48 rounded bg-white/10 px-2 py-1 text-sm"
    >
      {session.divisions.map((d) => (
        <option key={d.division} value={d.division} className="text-slate-900">
          {d.name} ({d.division})
        </option>
      ))}
    </select>
  )
}
