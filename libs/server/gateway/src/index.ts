export * from './lib/body-memory';
export * from './lib/proxy-url';
export * from './lib/gateway.module';
export * from './lib/proxy-registry';
export * from './lib/proxy-gateway';
export { RecentCalls, RECENT_CALLS_ARMED_MS, RECENT_CALLS_KEPT } from './lib/recent-calls';
export { closesAfterAnswer } from './lib/proxy-problem';
