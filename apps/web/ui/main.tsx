/** The dashboard shell: sign-in, the five tabs, and the page the URL names. */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { lazy, StrictMode, Suspense, useState, type FormEvent } from 'react'
import { createRoot } from 'react-dom/client'
import { adoptFragmentToken, token } from './api.ts'
import { History } from './history.tsx'
import { Runner } from './runner.tsx'
import './style.css'
import { TABS, tabOf, useUrl, type Tab } from './url-state.ts'

// The two pages a visit starts on (Runner, Run History) are in the first bundle; the others load
// with their tab, so the landing page parses less script before its first screen.
const RunDetail = lazy(() => import('./run-detail.tsx').then((m) => ({ default: m.RunDetail })))
const Tune = lazy(() => import('./tune.tsx').then((m) => ({ default: m.Tune })))
const Registry = lazy(() => import('./registry.tsx').then((m) => ({ default: m.Registry })))

const LABELS: Record<Tab, string> = { runner: 'Runner', history: 'Run History', run: 'Run detail', tune: 'Tune session', registry: 'Registry' }

function SignIn({ onDone }: { onDone: () => void }) {
  const [value, setValue] = useState('')
  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (!value.trim()) return
    token.set(value.trim())
    onDone()
  }
  return (
    <main className="signin">
      <h1>kerneltune</h1>
      <form onSubmit={submit}>
        <label htmlFor="token">API token</label>
        <input id="token" type="password" autoComplete="off" value={value} onChange={(e) => setValue(e.target.value)} />
        <button type="submit" disabled={!value.trim()}>Sign in</button>
        <p className="hint">The token stays in this tab only (sessionStorage). Mint one with <code>kerneltune token create</code>.</p>
      </form>
    </main>
  )
}

function App() {
  const [signedIn, setSignedIn] = useState(() => token.get() !== null)
  const [url, setUrl] = useUrl()
  if (!signedIn) return <SignIn onDone={() => setSignedIn(true)} />
  const tab = tabOf(url)
  return (
    <>
      <header>
        <h1>kerneltune</h1>
        <nav aria-label="Pages">
          <div role="tablist" aria-label="Pages">
            {TABS.map((t) => (
              <button key={t} role="tab" id={`tab-${t}`} aria-selected={t === tab} aria-controls="page" onClick={() => setUrl({ tab: t })}>{LABELS[t]}</button>
            ))}
          </div>
        </nav>
        <button className="signout" onClick={() => { token.clear(); setSignedIn(false) }}>Sign out</button>
      </header>
      <main id="page" role="tabpanel" aria-labelledby={`tab-${tab}`}>
        {tab === 'runner' && <Runner />}
        {tab === 'history' && <History />}
        <Suspense fallback={<p>Loading…</p>}>
          {tab === 'run' && <RunDetail />}
          {tab === 'tune' && <Tune />}
          {tab === 'registry' && <Registry />}
        </Suspense>
      </main>
    </>
  )
}

adoptFragmentToken()
const client = new QueryClient({ defaultOptions: { queries: { retry: false, refetchOnWindowFocus: false } } })
createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <QueryClientProvider client={client}><App /></QueryClientProvider>
  </StrictMode>,
)
