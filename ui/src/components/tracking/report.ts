import { useEffect, useRef } from 'react'
import type { NumbersReport } from '../../lib/tracking.ts'

/**
 * Tells the booking's form the numbers' report whenever what it says changes (compared by
 * content: the report is made afresh on every render).
 */
export function useReport(onReport: (r: NumbersReport) => void, report: NumbersReport): void {
  const latest = useRef(onReport)
  useEffect(() => {
    latest.current = onReport
  })
  const text = JSON.stringify(report)
  useEffect(() => {
    latest.current(JSON.parse(text) as NumbersReport)
  }, [text])
}
