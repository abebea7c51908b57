/** The calls of a list, counted by name. No mocks here: the moto test imports it too. */
export const countCalls = (calls: readonly string[]): Record<string, number> => {
  const out: Record<string, number> = {};
  for (const c of calls) out[c] = (out[c] ?? 0) + 1;
  return out;
};
