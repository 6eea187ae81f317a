// Types of values.mjs, for the TypeScript tests that use its snapshot.
export type Snapshot = { readonly __snapshot: unique symbol }
export const GETTER_ERROR: string
export const NOT_HERE: symbol
export const UNKNOWN_KEY: string
export function plainCopy<T>(v: T): T
export function deepFreeze<T>(v: T): T
export function kindOf(v: unknown): string
export function admitted(admits: Record<string, true | unknown[]>, v: unknown): boolean
export function hostileValues(o: { hugeChars: number }): Array<{ name: string; variant?: boolean; make(valid: unknown): unknown }>
export function snapshot(v: unknown): Snapshot
export function difference(a: Snapshot, b: Snapshot): string | undefined
export function describeValue(v: unknown): string
