import { splitProxyUrl, takeApiKey } from './proxy-url';

describe(splitProxyUrl.name, () => {
  it('splits slug, raw path and raw query without decoding', () => {
    expect(splitProxyUrl('/proxy/app-1/api/v3/movie%2F1?a=1&b=%20')).toEqual({
      slug: 'app-1',
      rawPath: '/api/v3/movie%2F1',
      rawQuery: 'a=1&b=%20',
    });
    expect(splitProxyUrl('/proxy/app')).toEqual({ slug: 'app', rawPath: '', rawQuery: '' });
    expect(splitProxyUrl('/api/x')).toBeUndefined();
  });
});

describe(takeApiKey.name, () => {
  it('removes every apikey parameter in any case and keeps the rest byte for byte', () => {
    expect(takeApiKey('apikey=k1&sort.key=title&ids=1&ids=2&ApiKey=k2&APIKEY=k3&x')).toEqual({
      query: 'sort.key=title&ids=1&ids=2&x',
      apiKey: 'k1',
    });
    expect(takeApiKey('%61pikey=k&a=%2F')).toEqual({ query: 'a=%2F', apiKey: 'k' });
    expect(takeApiKey('a=1')).toEqual({ query: 'a=1', apiKey: undefined });
    expect(takeApiKey('')).toEqual({ query: '' });
  });

  it('takes access_token (SignalR) as the key when there is no apikey, and strips both', () => {
    expect(takeApiKey('negotiateVersion=1&access_token=t1&Access_Token=t2')).toEqual({
      query: 'negotiateVersion=1',
      apiKey: 't1',
    });
    expect(takeApiKey('access_token=t&id=7&APIKEY=k')).toEqual({ query: 'id=7', apiKey: 'k' });
    expect(takeApiKey('%61ccess_token=t')).toEqual({ query: '', apiKey: 't' });
  });
});
