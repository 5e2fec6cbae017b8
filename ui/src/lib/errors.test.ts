import { describe, expect, it } from 'vitest'
import { CustomError, errorOutcome } from './errors.ts'

describe('errorOutcome', () => {
  it('shows a custom error with its code and takes its redirect', () => {
    const e = new CustomError('Error while getting Warehouses from Exact', { code: 'warehouses', redirectTo: '/mng' })
    expect(errorOutcome(e, '/dashboard')).toEqual({
      title: 'custom',
      detail: 'Error while getting Warehouses from Exact (warehouses)',
      redirect: '/mng',
    })
    expect(errorOutcome(new CustomError('x'), '/dashboard')).toMatchObject({ detail: 'x (-)', redirect: '/dashboard' })
  })

  it('sends any other error to the fallback as "An error has occurred"', () => {
    expect(errorOutcome(new TypeError('boom'), '/')).toEqual({ title: 'generic', detail: 'boom', redirect: '/' })
    expect(errorOutcome('text', '/')).toEqual({ title: 'generic', detail: null, redirect: '/' })
  })
})
