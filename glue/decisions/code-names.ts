// Reverse lookup in a generated code table: the name of a code the core returned.
export function codeName<N extends string>(table: Readonly<Record<N, number>>, code: number): N | undefined {
  return (Object.keys(table) as N[]).find((n) => table[n] === code);
}
