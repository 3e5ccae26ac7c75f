import { spawnSync } from 'node:child_process';
import { existsSync, globSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

const ROOT = join(__dirname, '..', '..', '..');
const RULES = ['@nx/enforce-module-boundaries', 'no-restricted-imports'];
const ENTITIES_RULE = /Entity classes stay inside their domain/;

interface Probe {
  name: string;
  /** Where the probe file would be (it need not exist). */
  filePath: string;
  /** One import line. */
  code: string;
  /** The rule's message, or null when the import must be allowed. */
  expected: RegExp | null;
}

/**
 * Each module-boundary rule of eslint.config.mjs, proved by a deliberately bad import that it must
 * refuse (and good ones it must let through): tags without working constraints enforce nothing. A probe
 * imports a lib that does not depend on the prober, or the rule would report the cycle instead.
 */
const PROBES: Probe[] = [
  {
    name: 'the dashboard never imports server code',
    filePath: 'apps/dashboard/src/app/probe.ts',
    code: "import { ProxyGateway as imported } from '@arrbiter/server/gateway';",
    expected: /tagged with "scope:dashboard" can only depend on libs tagged with/,
  },
  {
    name: 'server code never imports the dashboard',
    filePath: 'libs/server/apps/src/lib/probe.ts',
    code: "import { ConfirmService as imported } from '@arrbiter/dashboard/ui';",
    expected: /tagged with "scope:server" can only depend on libs tagged with/,
  },
  {
    name: 'a feature lib never reaches into another feature by path (only through its public index)',
    filePath: 'libs/server/gateway/src/lib/probe.ts',
    code: "import { ProxiesService as imported } from '../../../proxies/src/lib/proxies.service';",
    expected: /cannot be imported by a relative or absolute path/,
  },
  {
    name: 'a util lib never imports a feature',
    filePath: 'libs/server/crypto/src/lib/probe.ts',
    code: "import { ChangesService as imported } from '@arrbiter/server/history';",
    expected: /tagged with "type:util" can only depend on libs tagged with/,
  },
  {
    name: 'the data-access lib never imports a feature',
    filePath: 'libs/server/database/src/lib/probe.ts',
    // A feature that depends on nothing of the database's (history does): no cycle to report instead.
    code: "import { summarize as imported } from '@arrbiter/server/permissions';",
    expected: /tagged with "type:data-access" can only depend on libs tagged with/,
  },
  {
    name: 'production libs never import test helpers',
    filePath: 'libs/server/gateway/src/lib/probe.ts',
    code: "import { createTestDatabase as imported } from '@arrbiter/server/testing';",
    expected: /tagged with "type:feature" can only depend on libs tagged with/,
  },
  {
    name: 'contracts import nothing at run time',
    filePath: 'libs/contracts/src/lib/probe.ts',
    code: "import { Injectable as imported } from '@nestjs/common';",
    expected: /tagged with "type:contracts" is not allowed to import "@nestjs\/common"/,
  },
  {
    name: 'the shared allowlist rules import no npm package',
    filePath: 'libs/shared/allowlist-rules/src/lib/probe.ts',
    code: "import { Injectable as imported } from '@nestjs/common';",
    expected: /is not allowed to import "@nestjs\/common"/,
  },
  {
    name: 'the shared allowlist rules import no server code',
    filePath: 'libs/shared/allowlist-rules/src/lib/probe.ts',
    code: "import { AppConfig as imported } from '@arrbiter/server/config';",
    expected: /tagged with "scope:shared" can only depend on libs tagged with/,
  },
  {
    name: 'a domain never imports another domain’s entity classes',
    filePath: 'libs/server/gateway/src/lib/probe.ts',
    code: "import { ProxyEntity as imported } from '@arrbiter/server/proxies/entities';",
    expected: ENTITIES_RULE,
  },
  {
    name: 'a domain service never types another domain’s data with its entity class',
    filePath: 'libs/server/apps/src/lib/probe.ts',
    code: "import type { TemplateEntity as imported } from '@arrbiter/server/templates/entities';",
    expected: ENTITIES_RULE,
  },
  {
    name: 'the composition root never imports entity classes outside its entity list',
    filePath: 'apps/server/src/app/probe.ts',
    code: "import { AppEntity as imported } from '@arrbiter/server/apps/entities';",
    expected: ENTITIES_RULE,
  },
  {
    name: 'a tool never imports an app (the entity list moved out of apps/server for tools/db)',
    filePath: 'tools/db/probe.ts',
    code: "import { ENTITIES as imported } from '../../apps/server/src/app/entities';",
    expected: /cannot be imported by a relative or absolute path/,
  },
  {
    name: 'no lib imports a tool',
    filePath: 'libs/server/gateway/src/lib/probe.ts',
    code: "import { seed as imported } from '../../../../../tools/bench/src/seed';",
    expected: /cannot be imported by a relative or absolute path/,
  },
  {
    name: 'a tool never imports entity classes',
    filePath: 'tools/bench/src/probe.ts',
    code: "import { ProxyEntity as imported } from '@arrbiter/server/proxies/entities';",
    expected: ENTITIES_RULE,
  },
  {
    name: 'allows a tool the entity list',
    filePath: 'tools/db/probe.ts',
    code: "import { ENTITIES as imported } from '@arrbiter/server/schema';",
    expected: null,
  },
  {
    name: 'allows a tool the test helpers (the fake Servarr)',
    filePath: 'tools/bench/src/probe.ts',
    code: "import { FakeServarr as imported } from '@arrbiter/tools/fake-servarr';",
    expected: null,
  },
  {
    name: 'allows the DataSource’s entity list the entity entry points',
    filePath: 'libs/server/schema/src/lib/schema-entities.ts',
    code: "import { AppEntity as imported } from '@arrbiter/server/apps/entities';",
    expected: null,
  },
  {
    name: 'allows an entity file another domain’s entities (relations)',
    filePath: 'libs/server/warnings/src/lib/entities/probe.entity.ts',
    code: "import { ProxyEntity as imported } from '@arrbiter/server/proxies/entities';",
    expected: null,
  },
  {
    name: 'allows specs and test helpers the entity entry points',
    filePath: 'libs/server/gateway/src/lib/probe.spec.ts',
    code: "import type { ServiceEntity as imported } from '@arrbiter/server/services/entities';",
    expected: null,
  },
  {
    name: 'allows a feature through another feature’s public index',
    filePath: 'libs/server/gateway/src/lib/probe.ts',
    code: "import { CatalogModule as imported } from '@arrbiter/server/catalog';",
    expected: null,
  },
  {
    name: 'allows the dashboard the shared rules',
    filePath: 'apps/dashboard/src/app/probe.ts',
    code: "import { routeShape as imported } from '@arrbiter/shared/allowlist-rules';",
    expected: null,
  },
  {
    name: 'allows a feature lib’s specs (only they) the test helpers',
    filePath: 'libs/server/services/src/lib/probe.spec.ts',
    code: "import { floodingServer as imported } from '@arrbiter/tools/fake-servarr';",
    expected: null,
  },
  {
    name: 'allows the server app every server lib',
    filePath: 'apps/server/src/app/probe.ts',
    code: "import { GatewayModule as imported } from '@arrbiter/server/gateway';",
    expected: null,
  },
];

interface Message {
  ruleId: string | null;
  message: string;
}

/** The files a lib's `index.ts` re-exports, followed through relative `export … from` lines. */
function reexported(file: string, seen = new Set<string>()): Set<string> {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/^export [^;]*? from '(\.[^']+)';/gm)) {
    const target = [`${specifier}.ts`, join(specifier, 'index.ts')]
      .map((candidate) => join(dirname(file), candidate))
      .find((candidate) => existsSync(candidate));
    if (target) reexported(target, seen);
  }
  return seen;
}

describe('entity entry points', () => {
  const indexes = globSync('libs/server/*/src/index.ts', { cwd: ROOT }).map((file) => join(ROOT, file));

  it.each(indexes.map((file) => [relative(ROOT, file)]))('%s exports no entity class', (index) => {
    const entityFiles = [...reexported(join(ROOT, index))].filter((file) =>
      /@Entity\(/.test(readFileSync(file, 'utf8')),
    );
    expect(entityFiles.map((file) => relative(ROOT, file))).toEqual([]);
  });

  it('finds the entities through the separate entry points', () => {
    const entryPoints = globSync('libs/server/*/src/entities.ts', { cwd: ROOT });
    const entityFiles = entryPoints.flatMap((file) =>
      [...reexported(join(ROOT, file))].filter((f) => /@Entity\(/.test(readFileSync(f, 'utf8'))),
    );
    expect(entityFiles.length).toBeGreaterThanOrEqual(11);
  });
});

describe('module boundaries (eslint.config.mjs)', () => {
  let results: Message[][];

  beforeAll(() => {
    const probes = PROBES.map(({ filePath, code }) => ({
      filePath,
      code: `${code}\nexport const probe = imported;\n`,
    }));
    const run = spawnSync(process.execPath, [join(__dirname, 'lint-probes.mjs')], {
      cwd: ROOT,
      input: JSON.stringify(probes),
      encoding: 'utf8',
      env: { ...process.env, NX_DAEMON: 'false', NX_NO_CLOUD: 'true' },
    });
    if (run.status !== 0) throw new Error(`lint-probes failed: ${run.stderr}`);
    results = JSON.parse(run.stdout) as Message[][];
  });

  it.each(PROBES.map((probe, index) => [probe.name, index] as const))('%s', (_name, index) => {
    const { expected } = PROBES[index];
    const messages = results[index];
    // Nothing but the boundary rules may speak (a parse error would hide them).
    expect(messages.filter((m) => !RULES.includes(m.ruleId ?? ''))).toEqual([]);
    if (expected) expect(messages.map((m) => m.message)).toEqual([expect.stringMatching(expected)]);
    else expect(messages).toEqual([]);
  });
});
