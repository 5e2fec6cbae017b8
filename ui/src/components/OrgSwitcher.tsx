import { useMutation, useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef } from 'react'
import { useLocation, useNavigate } from 'react-router'
import { switchDivision, type Session } from '../api/auth.ts'
import { queryKeys } from '../api/queries.ts'
import { t } from '../i18n/index.ts'
import { afterSwitch, askedDivision } from '../lib/access.ts'

/** Switches the session's organization and goes where the new one can be used (see afterSwitch). */
function useSwitchDivision() {
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const { pathname } = useLocation()
  return useMutation({
    mutationFn: switchDivision,
    onSuccess: async (next) => {
      queryClient.setQueryData(queryKeys.session, next)
      // everything cached belongs to the previous organization
      await queryClient.invalidateQueries()
      navigate(afterSwitch(pathname, next), { replace: true })
    },
  })
}

/**
 * Switches between the organizations (divisions) of the signed-in user's Exact account. Shown
 * also while the chosen one is not activated: it is the way back to one that is.
 */
export function OrgSwitcher({ session }: { session: Session }) {
  const mutation = useSwitchDivision()
  if (session.divisions.length < 2) return null
  return (
    <select
      aria-label={t('nav.organization')}
      value={session.division}
      disabled={mutation.isPending}
      onChange={(e) => mutation.mutate(Number(e.target.value))}
      className="min-h-11 max-w-40 min-w-0 rounded bg-white/10 px-2 py-1 text-sm md:min-h-0 md:max-w-48"
    >
      {session.divisions.map((d) => (
        <option key={d.division} value={d.division} className="text-slate-900">
          {d.name} ({d.division})
        </option>
      ))}
    </select>
  )
}

/**
 * A link whose `?division=` names another of the user's organizations switches the session to
 * it (it was ignored: the screen showed the session's organization under the link's number).
 * Only a change of the address does this, so a switch made in another tab is not undone here.
 */
export function DivisionFromUrl({ session }: { session: Session }) {
  const { search } = useLocation()
  const mutation = useSwitchDivision()
  const { mutate, isPending } = mutation
  const handled = useRef<string | null>(null)
  useEffect(() => {
    if (handled.current === search || isPending) return
    handled.current = search
    const asked = askedDivision(search, session)
    if (asked !== null) mutate(asked)
  }, [search, session, mutate, isPending])
  return null
}
