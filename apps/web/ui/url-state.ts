/**
 * The URL is the page's state (`?deployment=&tab=&run=&...`): every change pushes a history entry,
 * so reload and back/forward restore the view, and a pasted link opens the same page.
 */
import { useCallback, useSyncExternalStore } from 'react'

export const TABS = ['runner', 'history', 'run', 'tune', 'registry'] as const
export type Tab = (typeof TABS)[number]

const listeners = new Set<() => void>()
const subscribe = (f: () => void) => {
  listeners.add(f)
  addEventListener('popstate', f)
  return () => { listeners.delete(f); removeEventListener('popstate', f) }
}

export function useUrl(): [URLSearchParams, (patch: Record<string, string | undefined>, replace?: boolean) => void] {
  const search = useSyncExternalStore(subscribe, () => location.search)
  const set = useCallback((patch: Record<string, string | undefined>, replace = false) => {
    const p = new URLSearchParams(location.search)
    for (const [k, v] of Object.entries(patch)) if (v === undefined || v === '') p.delete(k); else p.set(k, v)
    const url = location.pathname + (p.toString() ? '?' + p.toString() : '')
    if (replace) history.replaceState(null, '', url); else history.pushState(null, '', url)
    for (const f of listeners) f()
  }, [])
  return [new URLSearchParams(search), set]
}

export const tabOf = (p: URLSearchParams): Tab => {
  const t = p.get('tab') as Tab | null
  return t && TABS.includes(t) ? t : 'runner'
}
