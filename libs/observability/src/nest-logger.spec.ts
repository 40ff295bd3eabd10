import { Writable } from 'node:stream';
import { createLogger } from './logger';
import { PinoNestLogger } from './nest-logger';

function capture(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, nest: new PinoNestLogger(createLogger('test-service', level, sink)) };
}

describe('PinoNestLogger', () => {
  it("keeps Nest's start-up narration out of info logs", () => {
    const { lines, nest } = capture('info');
    nest.log('Starting Nest application...', 'NestFactory');
    nest.log('AppModule dependencies initialized', 'InstanceLoader');
    nest.log('ApiController {/api/v3}:', 'RoutesResolver');
    nest.log('Mapped {/api/v3/contacts, GET} route', 'RouterExplorer');
    nest.log('Nest application successfully started', 'NestApplication');
    nest.log('outbox relay started', 'OutboxRelay');
    expect(lines.map((l) => [l.level, l.context, l.msg])).toEqual([['info', 'OutboxRelay', 'outbox relay started']]);
  });

  it('shows the narration at debug, and never hides a warning or an error from those contexts', () => {
    const { lines, nest } = capture('debug');
    nest.log('Mapped {/api/v3/contacts, GET} route', 'RouterExplorer');
    nest.warn('something odd', 'InstanceLoader');
    nest.error('could not start', undefined, 'NestApplication');
    expect(lines.map((l) => [l.level, l.context])).toEqual([
      ['debug', 'RouterExplorer'],
      ['warn', 'InstanceLoader'],
      ['error', 'NestApplication'],
    ]);
  });
});
