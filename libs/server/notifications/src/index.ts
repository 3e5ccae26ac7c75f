export * from './lib/coalescer';
export * from './lib/delivery-queue';
export * from './lib/messages';
export * from './lib/notification-dispatcher';
export * from './lib/notification-event';
export * from './lib/notifications.module';
export * from './lib/notifier';
export * from './lib/webhook-url';
