/** Injection tokens of the service kit. */
export const LOGGER = Symbol('LOGGER');
export const METRICS_REGISTRY = Symbol('METRICS_REGISTRY');
export const SERVICE_NAME = Symbol('SERVICE_NAME');
