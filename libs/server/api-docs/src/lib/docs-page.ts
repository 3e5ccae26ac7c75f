/**
 * The Swagger UI page of the admin API. Scripts and styles are files of their own (`'self'`): the
 * server's Content-Security-Policy refuses inline scripts. No online validator badge (it would send the
 * description elsewhere, and the CSP refuses it anyway).
 */
export const DOCS_PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Arrbiter admin API</title>
    <link rel="stylesheet" href="/api/docs/swagger-ui.css" />
  </head>
  <body>
    <main id="swagger-ui"></main>
    <script src="/api/docs/swagger-ui-bundle.js"></script>
    <script src="/api/docs/init.js"></script>
  </body>
</html>
`;

export const DOCS_INIT = `window.ui = SwaggerUIBundle({
  url: '/api/docs/openapi.json',
  dom_id: '#swagger-ui',
  validatorUrl: null,
  deepLinking: true,
  // "Try it out" calls go with the session cookie; the browser adds the Origin that writes need.
  withCredentials: true,
});
`;
