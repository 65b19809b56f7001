/** The typed arrays that hold per-entry columns (the store's, the tree index's, the rows'). */
export type TypedColumn = Int32Array | Float64Array | Uint8Array;

/**
 * A column of the same kind, `length` long, holding the first values of `column` (as many as fit);
 * new slots are zero, or `fill` when given.
 */
export function resized<T extends TypedColumn>(column: T, length: number, fill?: number): T {
  const next = new (column.constructor as new (n: number) => T)(length);
  if (fill !== undefined && length > column.length) next.fill(fill, column.length);
  next.set(column.length > length ? column.subarray(0, length) : column);
  return next;
}
