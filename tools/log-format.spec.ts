// eslint-disable-next-line @typescript-eslint/no-require-imports
const { createLineFormatter, logFormat } = require('./log-format.cjs') as {
  logFormat: (env: Record<string, string | undefined>) => string;
  createLineFormatter: (options: { format: string }) => (line: string) => string[];
};

describe('service logs in development', () => {
  it('are readable in development and JSON in production; LOG_FORMAT decides when set', () => {
    expect(logFormat({})).toBe('pretty');
    expect(logFormat({ NODE_ENV: 'production' })).toBe('json');
    expect(logFormat({ LOG_FORMAT: 'json' })).toBe('json');
    expect(logFormat({ NODE_ENV: 'production', LOG_FORMAT: 'pretty' })).toBe('pretty');
    expect(logFormat({ LOG_FORMAT: 'bogus' })).toBe('pretty');
  });

  it('turns a JSON log line into time, level, message and fields', () => {
    const format = createLineFormatter({ format: 'pretty' });
    const line = JSON.stringify({
      level: 'info',
      time: '2025-01-01T10:00:00.000Z',
      service: 'crm-core',
      pid: 7,
      msg: 'crm-core listening',
      port: 3002,
    });
    const [shown, ...rest] = format(line);
    expect(rest).toEqual([]);
    expect(shown).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: crm-core listening \{"port":3002\}$/);
  });

  it("shows an error's stack on the lines below, and keeps other lines as they are", () => {
    const format = createLineFormatter({ format: 'pretty' });
    const lines = format(
      JSON.stringify({ level: 'error', msg: 'boom', err: { type: 'Error', message: 'boom', stack: 'Error: boom\n    at here' } }),
    );
    expect(lines[0]).toMatch(/^ERROR: boom/);
    expect(lines.join('\n')).toContain('at here');
    expect(format('plain text from a child')).toEqual(['plain text from a child']);
    expect(format('{"not": "a log line"}')).toEqual(['{"not": "a log line"}']);
    expect(format('{broken json')).toEqual(['{broken json']);
  });

  it('leaves JSON lines untouched in json format', () => {
    const line = JSON.stringify({ level: 'info', msg: 'x' });
    expect(createLineFormatter({ format: 'json' })(line)).toEqual([line]);
  });
});
