import { MASK, maskWebhookUrl, requestTarget, safeErrorText, webhookUrlProblem } from './webhook-url';

const DISCORD = 'https://discord.com/api/webhooks/1234567890123456789/AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcdefghij';

describe(webhookUrlProblem.name, () => {
  it.each([
    DISCORD,
    'https://ntfy.sh/arrbiter-alerts',
    'http://192.168.1.5:8090/hooks/arr?token=abc',
    'https://user:pa%40ss@hooks.example.com/notify',
  ])('accepts %s', (url) => expect(webhookUrlProblem(url)).toBeNull());

  it.each([
    ['ftp://example.com/hook', 'must start with http:// or https://'],
    ['example.com/hook', 'must be a full http:// or https:// URL'],
    ['https://example.com/hook#part', 'must not have a fragment (#…)'],
    ['https://example.com/a b', 'must not contain spaces or control characters'],
    [
      'https://discord.com/api/webhooks/123/…',
      'is a masked URL: leave url out to keep the stored one, or enter the whole new URL',
    ],
    [`https://example.com/${'x'.repeat(2048)}`, 'must be at most 2048 characters'],
  ])('refuses %s: %s', (url, problem) => expect(webhookUrlProblem(url)).toBe(problem));
});

describe(maskWebhookUrl.name, () => {
  it('shows the host and the path but its last segment, never a token, query or credentials', () => {
    expect(maskWebhookUrl(DISCORD)).toBe('https://discord.com/api/webhooks/1234567890123456789/…');
    expect(maskWebhookUrl('https://ntfy.sh/arrbiter-alerts')).toBe('https://ntfy.sh/…');
    expect(maskWebhookUrl('https://ntfy.example.com:8443/alerts?auth=tk_secret')).toBe(
      'https://ntfy.example.com:8443/…',
    );
    expect(maskWebhookUrl('https://user:secret@hooks.example.com/notify')).toBe('https://hooks.example.com/…');
    expect(maskWebhookUrl('https://hooks.example.com/x/AbCdEfGhIjKlMnOpQr/y')).toBe('https://hooks.example.com/x/…/…');
    expect(maskWebhookUrl('https://hooks.example.com/?key=secret')).toBe('https://hooks.example.com/…');
    expect(maskWebhookUrl('https://hooks.example.com/')).toBe('https://hooks.example.com');
  });
});

describe(requestTarget.name, () => {
  it('sends credentials of the URL as Basic authorization, not in the URL', () => {
    expect(requestTarget('https://user:pa%40ss@hooks.example.com/notify')).toEqual({
      url: 'https://hooks.example.com/notify',
      authorization: `Basic ${Buffer.from('user:pa@ss').toString('base64')}`,
    });
    expect(requestTarget('https://ntfy.sh/topic')).toEqual({ url: 'https://ntfy.sh/topic', authorization: null });
  });
});

describe(safeErrorText.name, () => {
  it('never repeats the URL or its secret parts, and keeps one short line', () => {
    const echoed = `HTTP 401: {"message": "Invalid Webhook Token", "url": "${DISCORD}", "token":\n"AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcdefghij"}`;
    const text = safeErrorText(echoed, DISCORD);
    expect(text).not.toContain('AbCdEfGh');
    expect(text).not.toContain('discord.com/api');
    expect(text).toContain('Invalid Webhook Token');
    expect(text).not.toContain('\n');
    const query = safeErrorText(
      'bad auth tk_secret123 for user pa@ss',
      'https://user:pa%40ss@h.example/x?auth=tk_secret123',
    );
    expect(query).toBe('bad auth … for … …');
    expect(safeErrorText('x'.repeat(1000), DISCORD)).toHaveLength(300);
  });

  const TOKEN = 'AbCdEfGhIjKlMnOpQrStUvWxYz0123456789-_abcdefghij';

  it('finds a secret base64-encoded inside a longer text, at any of the three alignments', () => {
    for (const lead of ['', 'x', 'xy', 'xyz']) {
      const document = `${lead}{"webhook":"${TOKEN}","ok":false}`;
      for (const encoded of [Buffer.from(document).toString('base64'), Buffer.from(document).toString('base64url')]) {
        const text = safeErrorText(`HTTP 400: ${encoded}`, DISCORD);
        // No run of it decodes to a part of the token longer than the two bytes at each edge.
        const decoded = text
          .split(MASK)
          .flatMap((run) =>
            [0, 1, 2, 3].map((skip) =>
              Buffer.from(run.replace(/^HTTP 400: /, '').slice(skip), 'base64').toString('latin1'),
            ),
          )
          .join('|');
        expect([lead, encoded, decoded]).toEqual([lead, encoded, expect.not.stringContaining(TOKEN.slice(2, 8))]);
        expect(decoded).not.toContain(TOKEN.slice(-8, -2));
      }
    }
  });

  it('masks the start of a secret where the text was cut, and never its own words', () => {
    expect(safeErrorText(`denied: ${TOKEN.slice(0, 12)}`, DISCORD)).toBe('denied: …');
    expect(safeErrorText(`denied: ${Buffer.from(TOKEN).toString('base64').slice(0, 20)}`, DISCORD)).toBe('denied: …');
    expect(safeErrorText('webhooks said no', DISCORD, 'answered 302, api/webhooks: ')).toBe(
      'answered 302, api/webhooks: … said no',
    );
  });
});
