/** The methods an allowlist can grant, lower case as in the stored override form. */
export const HTTP_METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

const METHOD_SET: ReadonlySet<string> = new Set(HTTP_METHODS);

export function isHttpMethod(value: string): value is HttpMethod {
  return METHOD_SET.has(value);
}
