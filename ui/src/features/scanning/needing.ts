// The open shop orders that need an item, each with its material line: from the server's copy,
// or from the catalogue this device keeps while the server cannot be reached. One query per item,
// shared by the Issue form and the item card.
import { useQuery } from '@tanstack/react-query'
import { scanKeys, useDivision } from '../../api/queries.ts'
import { isCatalogueRef, liveOrKept, type ScanCatalogue } from '../../offline/catalogue.ts'
import { useBookings } from '../../offline/queue.ts'
import { ordersNeeding, type ScannedItem } from '../../api/scan.ts'
import { keptIssues, toIssue } from './toIssue.ts'

type Named = Pick<ScannedItem, 'ID' | 'Code'>

export function useOrdersNeeding(item: Named | null, catalogue: ScanCatalogue | null) {
  return useQuery({
    queryKey: scanKeys.ordersNeeding(item?.ID ?? ''),
    queryFn: () =>
      liveOrKept(
        () => ordersNeeding(item!.ID),
        (c) => c.ordersNeeding(item!.Code),
        catalogue,
        { keptOnly: isCatalogueRef(item!.ID) },
      ),
    enabled: !!item,
  })
}

/** What this device keeps to issue, per material line (lower-case plan id), in this organization. */
export function useKeptIssues(): Map<string, number> {
  return keptIssues(useBookings(), useDivision())
}

/** How much of the item is booked out (issued here) and not yet in Exact's stock figures. */
export function useWaitingOut(item: Named | null, catalogue: ScanCatalogue | null): number {
  const needing = useOrdersNeeding(item, catalogue)
  const kept = useKeptIssues()
  return (needing.data?.value ?? []).reduce((sum, { plan }) => sum + toIssue(plan, kept).waiting, 0)
}
