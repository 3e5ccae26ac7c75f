// Turns a Kubernetes API server's /openapi/v2 document (built-in kinds and the CRDs it serves) into the
// standalone, strict JSON schemas kubeconform reads, one file per kind and API version:
//   node tools/k8s-schemas/openapi-to-json-schema.mjs <openapi-v2.json> <output dir>
// File names follow kubeconform's {{ .ResourceKind }}{{ .KindSuffix }}.json (deployment-apps-v1.json,
// service-v1.json, servicemonitor-monitoring-v1.json). Every $ref is inlined (a reference back into a
// definition being inlined becomes {}), every object with properties refuses unknown keys, optional
// fields may be null, and quantities and int-or-string values take either form, as in the schemas
// kubeconform publishes.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [input, output] = process.argv.slice(2);
if (!input || !output) {
  console.error('usage: openapi-to-json-schema.mjs <openapi-v2.json> <output dir>');
  process.exit(2);
}
const definitions = JSON.parse(readFileSync(input, 'utf8')).definitions;

const EITHER = {
  'io.k8s.apimachinery.pkg.api.resource.Quantity': [{ type: 'string' }, { type: 'number' }],
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': [{ type: 'string' }, { type: 'integer' }],
};

function nullable(schema) {
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  if (schema.oneOf) return { ...schema, oneOf: [...schema.oneOf, { type: 'null' }] };
  return schema;
}

function convert(schema, stack) {
  if (Array.isArray(schema)) return schema.map((item) => convert(item, stack));
  if (!schema || typeof schema !== 'object') return schema;
  if (schema.$ref) {
    const name = schema.$ref.replace('#/definitions/', '');
    if (EITHER[name]) return { oneOf: EITHER[name] };
    if (stack.includes(name)) return {};
    return convert(definitions[name], [...stack, name]);
  }
  if (schema.format === 'int-or-string') return { oneOf: EITHER['io.k8s.apimachinery.pkg.util.intstr.IntOrString'] };
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === 'properties') {
      const required = new Set(schema.required ?? []);
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, property]) => {
          const converted = convert(property, stack);
          return [name, required.has(name) ? converted : nullable(converted)];
        }),
      );
    } else if (key !== 'x-kubernetes-group-version-kind' && key !== 'description') {
      out[key] = convert(value, stack);
    }
  }
  // Strict: an object that lists its properties refuses any other key (x-kubernetes-preserve-unknown-fields aside).
  if (out.properties && out.additionalProperties === undefined && !schema['x-kubernetes-preserve-unknown-fields']) {
    out.additionalProperties = false;
  }
  return out;
}

mkdirSync(output, { recursive: true });
let written = 0;
for (const [name, definition] of Object.entries(definitions)) {
  const kinds = definition['x-kubernetes-group-version-kind'] ?? [];
  // Kinds shared by every group (DeleteOptions, WatchEvent…) are not resources to validate.
  if (kinds.length !== 1) continue;
  const { group, version, kind } = kinds[0];
  const apiVersion = group ? `${group}/${version}` : version;
  const [groupPart, versionPart] = apiVersion.split('/');
  const suffix = `-${groupPart.split('.')[0].toLowerCase()}${versionPart ? `-${versionPart.toLowerCase()}` : ''}`;
  const schema = { $schema: 'http://json-schema.org/schema#', ...convert(definition, [name]) };
  writeFileSync(join(output, `${kind.toLowerCase()}${suffix}.json`), JSON.stringify(schema));
  written += 1;
}
console.log(`${written} schemas written to ${output}`);
