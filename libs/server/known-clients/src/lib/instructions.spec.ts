import { parse as parseYaml } from 'yaml';
import { KNOWN_CLIENTS } from './catalogue';
import {
  InstructionTarget,
  MASKED_KEY,
  OTHER_CLIENT,
  placeholderValues,
  renderInstructions,
  unknownPlaceholders,
} from './instructions';
import type { KnownClient } from './known-client';
import { serviceTypesOf } from './known-clients.service';

/**
 * A TOML snippet of `[[table]]` headers and `key = "basic string"` lines, read back: the table names
 * and the strings, unescaped (TOML's basic-string escapes used here, `\\`, `\"` and `\uXXXX`, are
 * JSON's). Throws on any other line, escape or unescaped control character.
 */
function parseToml(text: string): Record<string, Record<string, string>[]> {
  const result: Record<string, Record<string, string>[]> = {};
  let table: Record<string, string> | undefined;
  for (const line of text.split('\n').filter((candidate) => candidate.trim() !== '')) {
    const header = /^\[\[([a-z0-9]+)\]\]$/.exec(line);
    // eslint-disable-next-line no-control-regex -- a raw control character is what it refuses
    const pair = /^\s*([a-z_]+) = ("(?:[^"\\\u0000-\u001f\u007f]|\\["\\]|\\u[0-9a-f]{4})*")$/.exec(line);
    if (header) {
      table = {};
      (result[header[1]] ??= []).push(table);
    } else if (pair && table) {
      table[pair[1]] = JSON.parse(pair[2]) as string;
    } else {
      throw new Error(`not TOML of this shape: ${JSON.stringify(line)}`);
    }
  }
  return result;
}

const KEY = 'a1b2c3d4e5f60718293a4b5c6d7e8f90';

function client(id: string): KnownClient {
  const found = KNOWN_CLIENTS.find((known) => known.id === id);
  if (!found) throw new Error(`no client ${id}`);
  return found;
}

function target(overrides: Partial<InstructionTarget> = {}): InstructionTarget {
  return {
    serviceId: 'service-1',
    proxyId: 'proxy-1',
    serviceName: 'Radarr 4K',
    serviceType: 'radarr',
    proxyUrl: 'https://arr.example.com/proxy/overseerr',
    key: KEY,
    ...overrides,
  };
}

/** The fields as `label → value`. */
function fieldsOf(dto: { fields: { label: string; value: string }[] }): Record<string, string> {
  return Object.fromEntries(dto.fields.map((field) => [field.label, field.value]));
}

describe('renderInstructions', () => {
  describe('placeholders', () => {
    it('derives scheme, host, the default port, SSL and the URL base from the Proxy URL', () => {
      expect(placeholderValues(target())).toEqual({
        url: 'https://arr.example.com/proxy/overseerr',
        scheme: 'https',
        host: 'arr.example.com',
        port: '443',
        ssl: 'true',
        sslOnOff: 'on',
        urlBase: '/proxy/overseerr',
        urlBaseNoLeadingSlash: 'proxy/overseerr',
        apiKey: KEY,
        serviceName: 'Radarr 4K',
        serviceType: 'radarr',
        serviceTypeName: 'Radarr',
      });
    });

    it('takes port 80 for http without a port, and an explicit port as it is', () => {
      expect(placeholderValues(target({ proxyUrl: 'http://nas/proxy/x' }))).toMatchObject({
        port: '80',
        ssl: 'false',
        sslOnOff: 'off',
        scheme: 'http',
      });
      expect(placeholderValues(target({ proxyUrl: 'http://nas:18080/proxy/x' }))).toMatchObject({
        port: '18080',
        host: 'nas',
      });
      expect(placeholderValues(target({ proxyUrl: 'https://arr.example.com:8443/proxy/x' }))).toMatchObject({
        port: '8443',
        ssl: 'true',
      });
    });

    it('keeps a PUBLIC_URL prefix in the URL base', () => {
      const values = placeholderValues(target({ proxyUrl: 'https://home.example.com/apps/arrbiter/proxy/overseerr' }));
      expect(values.urlBase).toBe('/apps/arrbiter/proxy/overseerr');
      expect(values.urlBaseNoLeadingSlash).toBe('apps/arrbiter/proxy/overseerr');
      expect(values.url).toBe('https://home.example.com/apps/arrbiter/proxy/overseerr');
    });

    it('brackets an IPv6 host and names an unknown service type by its id', () => {
      const values = placeholderValues(target({ proxyUrl: 'http://[fd00::5]:8080/proxy/x', serviceType: 'tdarr' }));
      expect(values.host).toBe('[fd00::5]');
      expect(values.port).toBe('8080');
      expect(values.serviceTypeName).toBe('tdarr');
    });
  });

  describe.each(['overseerr', 'jellyseerr', 'seerr'])('%s (the same screens)', (id) => {
    it("fills the server settings' fields with the proxy's values, the key a secret", () => {
      const dto = renderInstructions(
        client(id),
        target({ proxyUrl: 'https://arr.example.com/arrbiter/proxy/overseerr' }),
      );
      expect(dto).toMatchObject({ client: id, specific: true, serviceId: 'service-1', proxyId: 'proxy-1' });
      expect(dto.fields).toEqual([
        { label: 'Hostname or IP Address', value: 'arr.example.com', secret: false },
        { label: 'Port', value: '443', secret: false },
        { label: 'Use SSL', value: 'on', secret: false },
        { label: 'API Key', value: KEY, secret: true },
        { label: 'URL Base', value: '/arrbiter/proxy/overseerr', secret: false },
      ]);
      expect(dto.snippet).toBeUndefined();
      expect(dto.notes.join(' ')).toContain('Settings → Services');
      expect(dto.notes.join(' ')).toContain('Radarr server');
      expect(dto.source.url).toMatch(
        new RegExp(`^https://github\\.com/.+/blob/${client(id).source.commit}/.+RadarrModal`),
      );
    });

    it('cites the Sonarr screen for a Sonarr service', () => {
      const dto = renderInstructions(client(id), target({ serviceType: 'sonarr' }));
      expect(dto.source.url).toContain('SonarrModal');
      expect(dto.notes.join(' ')).toContain('Sonarr server');
    });
  });

  describe('homepage', () => {
    it('writes a services.yaml entry whose widget has the type, the URL and the key', () => {
      const dto = renderInstructions(client('homepage'), target({ serviceType: 'sonarr', serviceName: 'Sonarr' }));
      expect(dto.snippet?.filename).toBe('services.yaml');
      expect(dto.snippet?.language).toBe('yaml');
      expect(parseYaml(dto.snippet?.text ?? '')).toEqual([
        {
          Media: [
            {
              Sonarr: {
                widget: { type: 'sonarr', url: 'https://arr.example.com/proxy/overseerr', key: KEY },
              },
            },
          ],
        },
      ]);
      expect(fieldsOf(dto)).toEqual({ type: 'sonarr', url: 'https://arr.example.com/proxy/overseerr', key: KEY });
      expect(dto.source.url).toContain('docs/widgets/services/sonarr.md');
    });

    it('writes each service type as its widget type', () => {
      for (const type of serviceTypesOf(client('homepage'))) {
        const dto = renderInstructions(client('homepage'), target({ serviceType: type }));
        expect(fieldsOf(dto)['type']).toBe(type);
        expect(dto.source.url).toContain(`docs/widgets/services/${type}.md`);
      }
    });
  });

  describe('prowlarr (application sync)', () => {
    it("puts the proxy URL in the application's server field and leaves Prowlarr Server alone", () => {
      for (const type of serviceTypesOf(client('prowlarr'))) {
        const dto = renderInstructions(client('prowlarr'), target({ serviceType: type }));
        const name = placeholderValues(target({ serviceType: type })).serviceTypeName;
        expect(dto.fields).toEqual([
          { label: `${name} Server`, value: 'https://arr.example.com/proxy/overseerr', secret: false },
          { label: 'API Key', value: KEY, secret: true },
        ]);
        expect(dto.fields.map((field) => field.label)).not.toContain('Prowlarr Server');
        expect(dto.notes.join(' ')).toContain('“Prowlarr Server” stays');
        expect(dto.source.url).toContain(`Applications/${name}/${name}Settings.cs`);
      }
    });
  });

  describe('bazarr', () => {
    it('gives the Base URL without its leading slash, which the field shows already', () => {
      const dto = renderInstructions(client('bazarr'), target({ proxyUrl: 'http://nas:18080/arrbiter/proxy/bazarr' }));
      expect(fieldsOf(dto)).toEqual({
        Address: 'nas',
        Port: '18080',
        'Base URL': 'arrbiter/proxy/bazarr',
        'API Key': KEY,
        SSL: 'off',
      });
      expect(dto.source.url).toContain('Settings/Radarr/index.tsx');
      expect(renderInstructions(client('bazarr'), target({ serviceType: 'sonarr' })).source.url).toContain(
        'Settings/Sonarr/index.tsx',
      );
    });
  });

  describe('recyclarr', () => {
    it('writes a recyclarr.yml instance under the service type', () => {
      const dto = renderInstructions(
        client('recyclarr'),
        target({ serviceType: 'sonarr', serviceName: 'sonarr-main' }),
      );
      expect(dto.snippet?.filename).toBe('recyclarr.yml');
      expect(parseYaml(dto.snippet?.text ?? '')).toEqual({
        sonarr: { 'sonarr-main': { base_url: 'https://arr.example.com/proxy/overseerr', api_key: KEY } },
      });
    });
  });

  describe('kometa', () => {
    it("writes config.yml's radarr: url and token", () => {
      const dto = renderInstructions(client('kometa'), target());
      expect(dto.snippet?.filename).toBe('config.yml');
      expect(parseYaml(dto.snippet?.text ?? '')).toEqual({
        radarr: { url: 'https://arr.example.com/proxy/overseerr', token: KEY },
      });
      expect(fieldsOf(dto)).toEqual({ url: 'https://arr.example.com/proxy/overseerr', token: KEY });
    });
  });

  describe('unpackerr', () => {
    it("writes unpackerr.conf's [[sonarr]] url and api_key as TOML", () => {
      const dto = renderInstructions(client('unpackerr'), target({ serviceType: 'sonarr' }));
      expect(dto.snippet).toMatchObject({ filename: 'unpackerr.conf', language: 'toml' });
      expect(parseToml(dto.snippet?.text ?? '')).toEqual({
        sonarr: [{ url: 'https://arr.example.com/proxy/overseerr', api_key: KEY }],
      });
    });
  });

  describe('escaping', () => {
    const nasty = 'Bob\'s "4K" \\ radarr: #1\n- x: [y]\ttab\u007f\u2028 {{apiKey}} ünï 🎬 \ud800';

    it('quotes every value in YAML snippets so that it reads back as written', () => {
      const dto = renderInstructions(client('recyclarr'), target({ serviceName: nasty }));
      const parsed = parseYaml(dto.snippet?.text ?? '') as Record<string, Record<string, unknown>>;
      expect(Object.keys(parsed['radarr'])).toEqual([nasty.replace('\ud800', '\ufffd')]);
    });

    it('quotes every value in TOML snippets so that it reads back as written', () => {
      const key = 'k"e\\y\u0001';
      const dto = renderInstructions(client('unpackerr'), target({ key }));
      expect(parseToml(dto.snippet?.text ?? '')).toEqual({
        radarr: [{ url: 'https://arr.example.com/proxy/overseerr', api_key: key }],
      });
    });

    it('never reads a value as another placeholder', () => {
      const dto = renderInstructions(client('homepage'), target({ serviceName: '{{apiKey}}', key: null }));
      const parsed = parseYaml(dto.snippet?.text ?? '') as [{ Media: Record<string, unknown>[] }];
      expect(Object.keys(parsed[0].Media[0])).toEqual(['{{apiKey}}']);
    });

    it('writes a YAML-looking service name as a string, not a boolean or a number', () => {
      for (const name of ['on', 'true', '443', 'null', '~']) {
        const dto = renderInstructions(client('recyclarr'), target({ serviceName: name }));
        expect(Object.keys((parseYaml(dto.snippet?.text ?? '') as { radarr: object }).radarr)).toEqual([name]);
      }
    });
  });

  describe('the key', () => {
    it('is masked everywhere for a viewer (key null), still marked secret', () => {
      for (const known of KNOWN_CLIENTS) {
        for (const type of serviceTypesOf(known)) {
          const dto = renderInstructions(known, target({ serviceType: type, key: null }));
          const text = JSON.stringify(dto);
          expect(text).not.toContain(KEY);
          const secrets = dto.fields.filter((field) => field.secret);
          expect(secrets.length).toBeGreaterThan(0);
          for (const field of secrets) expect(field.value).toBe(MASKED_KEY);
          if (dto.snippet) expect(dto.snippet.text).toContain(MASKED_KEY);
        }
      }
    });

    it('is shown to those who may see it, and only in secret fields', () => {
      const dto = renderInstructions(client('overseerr'), target());
      for (const field of dto.fields) expect(field.secret).toBe(field.value.includes(KEY));
    });
  });

  describe('the generic fallback', () => {
    it('answers for no client: URL, host, port, SSL, URL base and key, with the rewrite for clients without a URL base', () => {
      const dto = renderInstructions(null, target({ proxyUrl: 'http://nas:18080/arrbiter/proxy/tool', key: null }));
      expect(dto).toMatchObject({ client: OTHER_CLIENT.id, clientName: OTHER_CLIENT.name, specific: false });
      expect(dto.fields).toEqual([
        { label: 'URL', value: 'http://nas:18080/arrbiter/proxy/tool', secret: false },
        { label: 'Host', value: 'nas', secret: false },
        { label: 'Port', value: '18080', secret: false },
        { label: 'Use SSL', value: 'off', secret: false },
        { label: 'URL Base', value: '/arrbiter/proxy/tool', secret: false },
        { label: 'API Key', value: MASKED_KEY, secret: true },
      ]);
      expect(dto.snippet).toBeUndefined();
      expect(dto.notes.join(' ')).toContain('proxy_pass http://nas:18080/arrbiter/proxy/tool/;');
      expect(dto.source.url).toMatch(/^https:\/\//);
    });

    it("answers for a catalogue client without set-up instructions, citing the client's own pages", () => {
      const without = KNOWN_CLIENTS.find((known) => !known.setup);
      expect(without).toBeDefined();
      const dto = renderInstructions(without as KnownClient, target());
      expect(dto).toMatchObject({ client: without?.id, clientName: without?.name, specific: false });
      expect(dto.source.url).toBe(without?.projectUrl);
      expect(fieldsOf(dto)['URL']).toBe('https://arr.example.com/proxy/overseerr');
    });
  });

  describe('the catalogue', () => {
    it('holds instructions for every client the issue names', () => {
      const named = [
        'overseerr',
        'jellyseerr',
        'seerr',
        'homepage',
        'prowlarr',
        'bazarr',
        'recyclarr',
        'kometa',
        'unpackerr',
      ];
      for (const id of named) expect(client(id).setup).toBeDefined();
    });

    it('uses known placeholders only, a key field in every setup, and renders every service type without one left', () => {
      for (const known of KNOWN_CLIENTS.filter((candidate) => candidate.setup)) {
        const text = JSON.stringify(known.setup);
        expect({ client: known.id, unknown: unknownPlaceholders(text) }).toEqual({ client: known.id, unknown: [] });
        for (const type of Object.keys(known.setup?.byServiceType ?? {}))
          expect({ client: known.id, type, called: serviceTypesOf(known).includes(type) }).toMatchObject({
            called: true,
          });
        for (const type of serviceTypesOf(known)) {
          const dto = renderInstructions(known, target({ serviceType: type }));
          expect(JSON.stringify(dto)).not.toMatch(/\{\{[A-Za-z]+\}\}/);
          expect(dto.fields.some((field) => field.secret && field.value === KEY)).toBe(true);
          if (dto.snippet?.language === 'yaml') expect(() => parseYaml(dto.snippet?.text ?? '')).not.toThrow();
          if (dto.snippet?.language === 'toml') expect(() => parseToml(dto.snippet?.text ?? '')).not.toThrow();
        }
      }
    });
  });
});
