// A jest `setupFiles` entry for suites that need V8's `gc` function, as the server has it when started
// with `--expose-gc` (`npm start`, the image's CMD). The root `npm test` passes the flag in NODE_OPTIONS;
// `nx test <lib>` and `jest --config <lib>/jest.config.cts` do not, so the flag is set here: Node's
// documented `v8.setFlagsFromString` applies it to every context created afterwards, which is where
// `youngCollection()` (libs/server/gateway) looks for `gc` (jest's test contexts do not copy it).
require('node:v8').setFlagsFromString('--expose-gc');
