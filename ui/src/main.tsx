import { QueryClientProvider } from '@tanstack/react-query'
import { StrictMode } from 'react'
import { createRoot } from 'react-dom/client'
import { BrowserRouter } from 'react-router'
import './index.css'
import App from './App.tsx'
import { createQueryClient } from './api/queryClient.ts'
import { getLanguage, useLanguage } from './i18n/index.ts'
import { installGlobalErrorHandler } from './lib/globalErrors.ts'
import { RootErrorBoundary } from './components/RootErrorBoundary.tsx'
import { registerServiceWorker } from './sw/register.ts'

// before anything runs, so no failed promise goes untold
installGlobalErrorHandler()
registerServiceWorker()
const queryClient = createQueryClient()
document.documentElement.lang = getLanguage()

/** Renders the app anew when the language changes, so every text is read again. */
function LanguageRoot() {
  const language = useLanguage()
  return <App key={language} />
}

const root = document.getElementById('root')
if (root) {
  createRoot(root).render(
    <StrictMode>
      <RootErrorBoundary>
        <QueryClientProvider client={queryClient}>
          <BrowserRouter>
            <LanguageRoot />
          </BrowserRouter>
        </QueryClientProvider>
      </RootErrorBoundary>
    </StrictMode>,
  )
}
