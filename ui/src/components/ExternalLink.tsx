import { useEffect, useState, type ReactNode } from 'react'
import { t } from '../i18n/index.ts'
import { useSession } from '../api/queries.ts'
import { exactHost, exactPageLabel, exactUrl, type ExactPage } from '../lib/exactLinks.ts'
import { CopyIcon, ExternalIcon } from './icons.tsx'

async function copyText(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) return navigator.clipboard.writeText(text)
  // older browsers and plain-http LAN installs have no async clipboard
  const area = document.createElement('textarea')
  area.value = text
  area.setAttribute('readonly', '')
  area.style.position = 'fixed'
  area.style.opacity = '0'
  document.body.appendChild(area)
  area.select()
  const ok = document.execCommand('copy')
  area.remove()
  if (!ok) throw new Error('copy refused')
}

/**
 * A page of Exact Online (by division and record id) opened in a new tab, with a button that
 * copies the record's `code` (an item code, an order number: what people paste into a search
 * or a message), or the page's address where the link shows no code.
 */
export function ExternalLink({
  page,
  division,
  id,
  code,
  children,
  className = '',
}: {
  page: ExactPage
  division: number
  id?: string
  /** The code the link shows or stands beside; the copy button copies it. */
  code?: string | number | null
  children?: ReactNode
  className?: string
}) {
  const { data: session } = useSession()
  const url = exactUrl(page, division, id, exactHost(session))
  const label = t(exactPageLabel(page))
  const [copied, setCopied] = useState<'yes' | 'failed' | null>(null)
  const copyable = code === null || code === undefined || String(code).trim() === '' ? null : String(code).trim()
  const copyLabel = copyable ? t('link.copyCode', { code: copyable }) : `${t('link.copy')}: ${label}`
  const done = copyable ? t('link.codeCopied', { code: copyable }) : t('link.copied')
  const failed = copyable ? t('link.copyCodeFailed') : t('link.copyFailed')

  useEffect(() => {
    if (!copied) return
    const timer = setTimeout(() => setCopied(null), 1_500)
    return () => clearTimeout(timer)
  }, [copied])

  // under 768 px the link and the copy button are 44 px tall to tap; the text keeps its size
  return (
    <span className={`inline-flex items-center gap-1 ${className}`}>
      <a
        href={url}
        target="_blank"
        rel="noopener noreferrer"
        title={t('link.opensNewTab', { label })}
        className="inline-flex items-center gap-1 whitespace-nowrap text-sky-800 underline-offset-2 hover:underline focus:ring-2 focus:ring-sky-600 focus:outline-none max-md:min-h-11"
      >
        {children ?? label}
        <ExternalIcon />
      </a>
      <button
        type="button"
        aria-label={copyLabel}
        title={copied === 'yes' ? done : copied === 'failed' ? failed : copyLabel}
        onClick={() => {
          copyText(copyable ?? url).then(
            () => setCopied('yes'),
            () => setCopied('failed'),
          )
        }}
        className="rounded p-1 text-slate-500 hover:bg-slate-100 hover:text-slate-800 focus:ring-2 focus:ring-sky-600 focus:outline-none max-md:inline-flex max-md:min-h-11 max-md:min-w-11 max-md:items-center max-md:justify-center"
      >
        <CopyIcon />
      </button>
      {copied && (
        <span role="status" className={`text-xs ${copied === 'yes' ? 'text-emerald-700' : 'text-red-700'}`}>
          {copied === 'yes' ? done : failed}
        </span>
      )}
    </span>
  )
}
