import { useId, type HTMLAttributes, type ReactNode } from 'react'

// The white card the screens put each part of a form or list in.
export const sectionClass = 'flex flex-col gap-3 rounded-lg bg-white p-4 shadow'
const titleClass = 'text-lg font-semibold'

type Props = Omit<HTMLAttributes<HTMLElement>, 'title'> & {
  /** The heading (an h2) that names the section. */
  title: ReactNode
  /** The heading's id when something else points at it (an e2e spec, a skip link). */
  titleId?: string
  /** Beside the title, at the end of its row (a close button, a count). */
  actions?: ReactNode
  children: ReactNode
}

/** A titled card: a <section> named by its h2, so it is a landmark a screen reader lists. */
export function Section({ title, titleId, actions, children, className = sectionClass, ...rest }: Props) {
  const ownId = useId()
  const id = titleId ?? ownId
  const heading = (
    <h2 id={id} className={titleClass}>
      {title}
    </h2>
  )
  return (
    <section className={className} aria-labelledby={id} {...rest}>
      {actions ? (
        <div className="flex items-center justify-between gap-2">
          {heading}
          {actions}
        </div>
      ) : (
        heading
      )}
      {children}
    </section>
  )
}
