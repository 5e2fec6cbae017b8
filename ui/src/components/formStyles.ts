// Tailwind classes shared by the shop-floor forms: touch targets of at least 44 px on handhelds.
export const inputClass = 'min-h-11 w-full rounded border border-slate-300 bg-white px-3 py-2 text-base focus:ring-2 focus:ring-sky-600 focus:outline-none'
export const primaryButton =
  'min-h-11 rounded bg-sky-800 px-4 py-2 font-medium text-white hover:bg-sky-900 focus:ring-2 focus:ring-sky-600 focus:ring-offset-2 focus:outline-none disabled:opacity-50'
export const secondaryButton =
  'min-h-11 rounded border border-slate-300 bg-white px-4 py-2 hover:bg-slate-100 focus:ring-2 focus:ring-sky-600 focus:outline-none disabled:opacity-50'
export const sectionClass = 'flex flex-col gap-3 rounded-lg bg-white p-4 shadow'
export const labelClass = 'flex flex-col gap-1 text-sm font-medium text-slate-700'
