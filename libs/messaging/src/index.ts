export * from './namespaced-nats.server';
export * from './nats-connection';
export * from './nats-wire';
export * from './rpc-client';
export * from './rpc-reply.interceptor';
export * from './nats-client.module';
export * from './attach-nats-server';
export * from './rpc-params.decorators';
