// Keeps watch over the session and is the one place that ends it.
import { useQueryClient } from '@tanstack/react-query'
import { createContext, useCallback, useContext, useEffect, useRef, type ReactNode } from 'react'
import { useNavigate } from 'react-router'
import { logout as postLogout } from '../api/auth.ts'
import { isCriticalError, isSignInRefused, onApiError, PROVIDER_SIGN_IN } from '../api/client.ts'
import { queryKeys, useSession } from '../api/queries.ts'
import { isLanguage, setLanguage, t, type MessageKey } from '../i18n/index.ts'
import { HOME, isSignedIn } from '../lib/access.ts'
import { errorNotices } from '../lib/globalErrors.ts'
import { forgetCatalogues } from '../offline/catalogue.ts'
import { endSession, sessionEnded } from './sessionEnd.ts'

/** Why the session ends; anything but the user's own choice is told on Home. */
export type EndReason = 'user' | 'expired' | 'critical' | 'refused'

/** What Home says about a session that ended without the user asking. */
const END_NOTICES: Record<Exclude<EndReason, 'user'>, MessageKey> = {
  expired: 'session.expired',
  critical: 'error.critical',
  refused: 'session.refused',
}

/** Why a failed session check or call ended the session. */
function endReasonOf(error: unknown): EndReason {
  if (isCriticalError(error)) return 'critical'
  return isSignInRefused(error) ? 'refused' : 'expired'
}

/** Navigation state Home reads to show why the user is back. */
export interface HomeNotice {
  notice?: string
}

const EndSessionContext = createContext<(reason: EndReason) => Promise<void>>(async () => {})

export function useEndSession() {
  return useContext(EndSessionContext)
}

export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient()
  const navigate = useNavigate()
  const { data, error } = useSession()
  const wasSignedIn = useRef(false)

  // several calls may fail at once as a session ends: it ends once
  const ending = useRef(false)
  // told once: a server that keeps answering critical must not log out in a loop
  const criticalTold = useRef(false)
  const end = useCallback(
    async (reason: EndReason) => {
      if (ending.current || (reason === 'critical' && criticalTold.current)) return
      ending.current = true
      if (reason === 'critical') criticalTold.current = true
      wasSignedIn.current = false
      try {
        await endSession({ postLogout, queryClient, local: window.localStorage, session: window.sessionStorage, forgetCatalogues })
        errorNotices.clear()
        const notice = reason === 'user' ? undefined : t(END_NOTICES[reason])
        navigate(HOME, { replace: true, state: notice ? ({ notice } satisfies HomeNotice) : null })
      } finally {
        ending.current = false
      }
    },
    [queryClient, navigate],
  )

  // Every call made through the API client, in a query or not: a critical error or Exact ending
  // the user ends the session (spec §8); a call Exact refused has the session checked at once,
  // which then says whether the refusal ended it.
  useEffect(
    () =>
      onApiError((error) => {
        if (isCriticalError(error) || isSignInRefused(error)) void end(endReasonOf(error))
        else if (error.code === PROVIDER_SIGN_IN) void queryClient.invalidateQueries({ queryKey: queryKeys.session })
      }),
    [queryClient, end],
  )

  // A critical error from any call ends the session (spec §8), also one made outside the client.
  useEffect(() => {
    const onCritical = (error: unknown) => {
      if (isCriticalError(error)) void end('critical')
    }
    const unsubscribeQueries = queryClient.getQueryCache().subscribe((e) => {
      if (e.type === 'updated' && e.action.type === 'error') onCritical(e.action.error)
    })
    const unsubscribeMutations = queryClient.getMutationCache().subscribe((e) => {
      if (e.type === 'updated' && e.action.type === 'error') onCritical(e.action.error)
    })
    return () => {
      unsubscribeQueries()
      unsubscribeMutations()
    }
  }, [queryClient, end])

  // the user's own language choice, kept in their preferences, wins over the browser's
  const language = data?.userPreferences?.language
  useEffect(() => {
    if (isLanguage(language)) setLanguage(language)
  }, [language])

  useEffect(() => {
    if (sessionEnded(wasSignedIn.current, data, error)) {
      void end(endReasonOf(error))
    } else if (!error) {
      wasSignedIn.current = isSignedIn(data)
      if (wasSignedIn.current) criticalTold.current = false
    }
  }, [data, error, end])

  return <EndSessionContext.Provider value={end}>{children}</EndSessionContext.Provider>
}
