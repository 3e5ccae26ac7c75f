/**
 * The prefix as it may stand in an HTML attribute and in a quoted script string: every character but
 * letters, digits and `/ . _ ~ -` percent-encoded (a sub-path may hold `' ( ) ; & =`, and a trusted
 * proxy may pass on a client's X-Forwarded-Prefix).
 */
function quoted(prefix: string): string {
  return prefix.replace(/[^A-Za-z0-9/._~-]/g, (c) =>
    encodeURIComponent(c).replace(/[!'()*]/g, (x) => `%${x.charCodeAt(0).toString(16).toUpperCase()}`),
  );
}

/**
 * The Swagger UI page of the admin API, its files under `prefix` (the sub-path the server lives under
 * for this request, '' or `/arrbiter`). Scripts and styles are files of their own (`'self'`): the
 * server's Content-Security-Policy refuses inline scripts. No online validator badge (it would send the
 * description elsewhere, and the CSP refuses it anyway).
 */
export const docsPage = (raw: string) => {
  const prefix = quoted(raw);
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Arrbiter admin API</title>
    <link rel="stylesheet" href="${prefix}/api/docs/swagger-ui.css" />
  </head>
  <body>
    <main id="swagger-ui"></main>
    <script src="${prefix}/api/docs/swagger-ui-bundle.js"></script>
    <script src="${prefix}/api/docs/init.js"></script>
  </body>
</html>
`;
};

/** Swagger UI's start-up script: the description under `prefix`, as the page's files. */
export const docsInit = (prefix: string) => `window.ui = SwaggerUIBundle({
  url: '${quoted(prefix)}/api/docs/openapi.json',
  dom_id: '#swagger-ui',
  validatorUrl: null,
  deepLinking: true,
  // "Try it out" calls go with the session cookie; the browser adds the Origin that writes need.
  withCredentials: true,
});
`;
