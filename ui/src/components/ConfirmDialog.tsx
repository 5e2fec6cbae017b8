import { useId, type ReactNode, type RefObject } from 'react'
import { Dialog } from './ui/Dialog.tsx'

interface Props {
  message: string
  /** What the question is about, shown under it (a list of what will change). */
  children?: ReactNode
  noLabel: string
  yesLabel: string
  onNo: () => void
  onYes: () => void
  /** Where the focus goes when the question closes, when its opener leaves the page with it. */
  returnFocusTo?: RefObject<HTMLElement | null>
}

/** A modal yes/no question; No has the focus and Escape answers No. */
export function ConfirmDialog({ message, children, noLabel, yesLabel, onNo, onYes, returnFocusTo }: Props) {
  const id = useId()

  return (
    <Dialog labelledBy={id} onClose={onNo} returnFocusTo={returnFocusTo} className="m-auto rounded-lg p-6 shadow-xl backdrop:bg-black/40">
      <p id={id} className="mb-6 text-lg text-slate-900">
        {message}
      </p>
      {children && <div className="mb-6 max-h-[50vh] overflow-y-auto">{children}</div>}
      <div className="flex justify-end gap-3">
        <button type="button" autoFocus onClick={onNo} className="rounded border border-slate-300 px-4 py-2 hover:bg-slate-100">
          {noLabel}
        </button>
        <button type="button" onClick={onYes} className="rounded bg-red-700 px-4 py-2 text-white hover:bg-red-800">
          {yesLabel}
        </button>
      </div>
    </Dialog>
  )
}
