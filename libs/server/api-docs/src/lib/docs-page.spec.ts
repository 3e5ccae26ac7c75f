import { docsInit, docsPage } from './docs-page';

describe('the API viewer under a prefix', () => {
  it('puts a plain prefix as it is', () => {
    expect(docsInit('/arrbiter')).toContain("url: '/arrbiter/api/docs/openapi.json'");
    expect(docsPage('/arrbiter')).toContain('src="/arrbiter/api/docs/init.js"');
  });

  it("never lets a prefix's quotes or markup out of the script's string or the page's attributes", () => {
    // A trusted proxy may pass on a client's X-Forwarded-Prefix; a sub-path may hold ' & ( ) ; = (RFC 3986).
    const prefix = "/x';alert(1);'<b>&";
    expect(docsInit(prefix)).toContain("url: '/x%27%3Balert%281%29%3B%27%3Cb%3E%26/api/docs/openapi.json'");
    expect(docsPage(prefix)).not.toMatch(/[';<>&]alert|<b>/);
  });
});
