// The Sync Data menu's choice of endpoints, remembered in localStorage (spec §2).
import { useCallback, useState } from 'react'
import type { SyncEndpoint } from '../api/sync.ts'
import { readJson, STORAGE_KEYS, writeJson } from '../lib/storage.ts'

/** Sync endpoints first, then the live ones, each group in the server's order. */
export function orderEndpoints(list: readonly SyncEndpoint[]): SyncEndpoint[] {
  return [...list.filter((e) => e.sync), ...list.filter((e) => !e.sync)]
}

export function defaultSelection(list: readonly SyncEndpoint[]): string[] {
  return list.filter((e) => e.default_selected).map((e) => e.table)
}

/**
 * The remembered selection, limited to tables the server still offers; the default when
 * nothing (valid) is stored. An empty stored list is a choice and is kept.
 */
export function loadSelection(storage: Storage, list: readonly SyncEndpoint[]): string[] {
  const stored = readJson(storage, STORAGE_KEYS.selectedEndpoints)
  if (!Array.isArray(stored) || !stored.every((x) => typeof x === 'string')) return defaultSelection(list)
  const known = new Set(list.map((e) => e.table))
  return stored.filter((table) => known.has(table))
}

export function saveSelection(storage: Storage, tables: readonly string[]): void {
  writeJson(storage, STORAGE_KEYS.selectedEndpoints, tables)
}

/** Adds or removes `table`, keeping the menu's order. */
export function toggleTable(selection: readonly string[], table: string, list: readonly SyncEndpoint[]): string[] {
  const next = new Set(selection)
  if (next.has(table)) next.delete(table)
  else next.add(table)
  return orderEndpoints(list)
    .map((e) => e.table)
    .filter((t) => next.has(t))
}

/** The selection for the given endpoint list, and a toggle that saves it. */
export function useEndpointSelection(list: readonly SyncEndpoint[]) {
  // Re-read when the list changes (it arrives after the first render).
  const [state, setState] = useState<{ list: readonly SyncEndpoint[]; selection: string[] }>(() => ({
    list,
    selection: loadSelection(window.localStorage, list),
  }))
  let current = state
  if (state.list !== list) {
    current = { list, selection: loadSelection(window.localStorage, list) }
    setState(current)
  }
  const toggle = useCallback((table: string) => {
    setState((s) => {
      const selection = toggleTable(s.selection, table, s.list)
      saveSelection(window.localStorage, selection)
      return { ...s, selection }
    })
  }, [])
  return { selection: current.selection, toggle }
}
