/** SSM's GetParametersByPath over an in-memory map, for the mocked-client harnesses. */

/**
 * GetParametersByPath over a map of parameters as SSM answers it: the names directly under
 * Path (Recursive false), MaxResults a page (10 at most), NextToken the next page's first index.
 */
export function parametersByPath(
  parameters: Map<string, string>,
  input: { Path?: string; MaxResults?: number; NextToken?: string },
) {
  const prefix = `${input.Path}/`;
  const names = [...parameters.keys()]
    .filter((n) => n.startsWith(prefix) && !n.slice(prefix.length).includes('/'))
    .sort()
    .reverse(); // SSM promises no order: the adapter sorts.
  const from = Number(input.NextToken ?? 0);
  const size = Math.min(input.MaxResults ?? 10, 10);
  const page = names.slice(from, from + size);
  return {
    Parameters: page.map((Name) => ({ Name, Value: parameters.get(Name)!, Type: 'String' as const })),
    ...(from + size < names.length ? { NextToken: String(from + size) } : {}),
  };
}
