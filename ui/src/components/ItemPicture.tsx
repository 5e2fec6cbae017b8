import { useState } from 'react'
import { hasRealPicture } from '../api/stock.ts'
import { PictureIcon } from './icons.tsx'

/**
 * An item's picture from the server, or a neutral icon when it has none or it cannot be loaded.
 * `box` sizes it (each screen shows it at its own size); `alt` and `missing` are the caller's texts.
 */
export function ItemPicture({ item, box, alt, missing }: { item: { ID: string; PictureUrl?: string | null }; box: string; alt: string; missing: string }) {
  const [failed, setFailed] = useState(false)
  if (!hasRealPicture(item.PictureUrl) || failed) {
    return (
      <span role="img" aria-label={missing} className={`${box} flex shrink-0 items-center justify-center rounded-lg bg-slate-100 text-slate-400`}>
        <PictureIcon />
      </span>
    )
  }
  return (
    <img
      src={`/api/v1/pictures/${encodeURIComponent(item.ID)}`}
      alt={alt}
      onError={() => setFailed(true)}
      className={`${box} shrink-0 rounded-lg bg-white object-contain`}
    />
  )
}
