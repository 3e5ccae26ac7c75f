/**
 * Lets jest (CommonJS, no --experimental-vm-modules) load the few ESM-minded packages the server uses:
 * - PGlite loads parts of itself with `import("fs/promises")`, which jest's VM cannot run without the
 *   flag; this rewrites such dynamic imports of bare names into `require`.
 * - http-proxy-middleware 4, httpxy and @nestjs/typeorm 12 are ESM-only; they are handed to ts-jest to become CommonJS.
 *   @nestjs/typeorm declares its own `require` from `createRequire(import.meta.url)`: CommonJS has one already.
 */
const { createHash } = require('node:crypto');
const tsJest = require('ts-jest').default;

const tsTransformer = tsJest.createTransformer({
  tsconfig: { allowJs: true, module: 'commonjs', esModuleInterop: true },
  diagnostics: false,
});
const DYNAMIC_IMPORT = /\bimport\((["'])([^"'./][^"']*)\1\)/g;

module.exports = {
  canInstrument: false,
  process(source, path, options) {
    if (path.includes('@electric-sql')) {
      // The module's own `require`, captured before emscripten's code declares a `var require` of its own.
      const code = source.replace(
        DYNAMIC_IMPORT,
        (_m, q, name) => `Promise.resolve().then(() => __moduleRequire(${q}${name}${q}))`,
      );
      return { code: `const __moduleRequire = require;${code}` };
    }
    if (path.includes('@nestjs/typeorm')) {
      source = source.replace(/^const require = createRequire\(import\.meta\.url\);$/m, '');
    }
    return tsTransformer.process(source, path, options);
  },
  getCacheKey(source, path, options) {
    return createHash('sha256')
      .update('esm-interop-3')
      .update(path)
      .update(source)
      .update(options.configString ?? '')
      .digest('hex');
  },
};
