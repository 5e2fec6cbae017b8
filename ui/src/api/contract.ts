// The server's API as typed by its own OpenAPI document: `contract.gen.ts` is generated from
// `openapi.json` (which a Rust test keeps equal to what the server documents), so a changed
// answer on the server shows here as a type error in every screen that reads it.
import { api, request, type Answer, type RequestOptions } from './client.ts'
import type { components, paths } from './contract.gen.ts'

/** The named types of the document (`Schema<'Timer'>`). */
export type Schema<Name extends keyof components['schemas']> = components['schemas'][Name]

type Strip<K> = K extends `/api/v1${infer Rest}` ? Rest : never
/** A route of the document, as `api` takes it: without `/api/v1`, path parameters as `{name}`. */
export type Route = Strip<keyof paths>
type Item<P extends Route> = paths[`/api/v1${P}`]
type Verb = 'get' | 'post' | 'put' | 'delete'
/** The methods `P` answers. */
export type VerbOf<P extends Route> = { [M in Verb]: Item<P>[M] extends undefined ? never : M }[Verb]
type Operation<P extends Route, M extends VerbOf<P>> = NonNullable<Item<P>[M]>

type SuccessStatus = 200 | 201 | 202 | 204
type JsonOf<R> = R extends { content: { 'application/json': infer J } } ? J : R extends { content?: never } ? void : never
type Responses<O> = O extends { responses: infer R } ? R : never
/** What `M P` answers on success (the union of its 2xx answers). */
export type Reply<P extends Route, M extends VerbOf<P> = VerbOf<P>> = {
  [S in keyof Responses<Operation<P, M>>]: S extends SuccessStatus ? JsonOf<Responses<Operation<P, M>>[S]> : never
}[keyof Responses<Operation<P, M>>]
/** The JSON body `M P` takes. */
export type BodyOf<P extends Route, M extends VerbOf<P>> = Operation<P, M> extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never
type PathParams<P extends Route, M extends VerbOf<P>> = Operation<P, M> extends { parameters: { path: infer X } } ? X : never
type QueryParams<P extends Route, M extends VerbOf<P>> = Operation<P, M> extends { parameters: { query?: infer Q } } ? Q : never

export interface CallOptions<P extends Route, M extends VerbOf<P>> extends Omit<RequestOptions, 'method' | 'body'> {
  /** The `{name}` parts of the path. */
  params?: PathParams<P, M>
  query?: QueryParams<P, M>
  body?: BodyOf<P, M>
}

/** The path of a call: `{name}` parts filled in (encoded) and the query string added. */
export function pathOf(route: string, params?: unknown, query?: unknown): string {
  const values = (params ?? {}) as Record<string, unknown>
  const path = route.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = values[name]
    if (value === undefined || value === null) throw new Error(`${route} needs its '${name}'`)
    return encodeURIComponent(String(value))
  })
  const search = new URLSearchParams()
  for (const [k, v] of Object.entries((query ?? {}) as Record<string, unknown>)) {
    if (v === undefined || v === null) continue
    search.append(k, typeof v === 'string' ? v : JSON.stringify(v))
  }
  const qs = search.toString()
  return qs ? `${path}?${qs}` : path
}

function optionsOf<P extends Route, M extends VerbOf<P>>(method: M, options: CallOptions<P, M>): RequestOptions {
  const { params: _params, query: _query, body, ...rest } = options
  return { ...rest, method: method.toUpperCase() as RequestOptions['method'], body }
}

/** Calls `M P` of the document: the path, its parameters and body are checked, the answer typed. */
export function call<P extends Route, M extends VerbOf<P>>(method: M, route: P, options: CallOptions<P, M> = {}): Promise<Reply<P, M>> {
  return api<Reply<P, M>>(pathOf(route, options.params, options.query), optionsOf(method, options))
}

/** `call` with the answer's as-of time (a live read answered from the server's stored copy). */
export function callDated<P extends Route, M extends VerbOf<P>>(method: M, route: P, options: CallOptions<P, M> = {}): Promise<Answer<Reply<P, M>>> {
  return request<Reply<P, M>>(pathOf(route, options.params, options.query), optionsOf(method, options))
}
