import { call, type Schema } from './contract.ts'

export type Health = Schema<'Health'>

export const getHealth = () => call('get', '/health')
