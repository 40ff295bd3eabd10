import type { LoggerService } from '@nestjs/common';
import type { Logger } from 'pino';

/**
 * Nest's own start-up narration ("Mapped {/x, GET} route", "XModule dependencies initialized",
 * "Nest application successfully started"): one line per route and module, about a hundred per
 * service. Logged at debug (LOG_LEVEL=debug shows them); their warnings and errors stay as they are.
 */
export const NEST_STARTUP_CONTEXTS: ReadonlySet<string> = new Set([
  'NestFactory',
  'InstanceLoader',
  'RoutesResolver',
  'RouterExplorer',
  'NestApplication',
  'NestMicroservice',
]);

/** Nest's logger interface over pino, so framework messages are JSON lines too. */
export class PinoNestLogger implements LoggerService {
  constructor(private readonly logger: Logger) {}

  log(message: unknown, context?: string): void {
    this.write(context !== undefined && NEST_STARTUP_CONTEXTS.has(context) ? 'debug' : 'info', message, context);
  }
  error(message: unknown, trace?: string, context?: string): void {
    this.logger.error({ context, trace }, String(message instanceof Error ? message.message : message));
  }
  warn(message: unknown, context?: string): void {
    this.write('warn', message, context);
  }
  debug(message: unknown, context?: string): void {
    this.write('debug', message, context);
  }
  verbose(message: unknown, context?: string): void {
    this.write('trace', message, context);
  }
  fatal(message: unknown, context?: string): void {
    this.write('fatal', message, context);
  }

  private write(level: 'info' | 'warn' | 'debug' | 'trace' | 'fatal', message: unknown, context?: string): void {
    if (typeof message === 'object' && message !== null) this.logger[level]({ context, ...(message as object) });
    else this.logger[level]({ context }, String(message));
  }
}
