export * from './webhook.dto';
export * from './webhook.requests';
export * from './webhook.routes';
export * from './webhook.subjects';
