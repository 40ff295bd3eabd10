// The Grafana dashboard and the Prometheus alert rules name only metrics (and labels) the services
// export. What they export is read from the code: every `new Counter|Gauge|Histogram|Summary({ name })`
// in apps/ and libs/, and prom-client's default metrics as createMetricsRegistry collects them.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createMetricsRegistry } from '@crm/observability';
import ts from 'typescript';
import { parse } from 'yaml';

const ROOT = path.resolve(__dirname, '../..');
const DASHBOARD = path.join(__dirname, 'crm-dashboard.json');
const ALERTS = path.join(__dirname, 'crm-alerts.yaml');

type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary';
interface Exported {
  type: MetricType;
  labels: Set<string>;
  where: string;
}

const CONSTRUCTORS: Record<string, MetricType> = { Counter: 'counter', Gauge: 'gauge', Histogram: 'histogram', Summary: 'summary' };

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules') yield* sourceFiles(full);
    } else if (entry.name.endsWith('.ts') && !/\.(spec|int-spec|medium-spec|e2e-spec)\.ts$/.test(entry.name)) yield full;
  }
}

/** The metric registrations of the services' code: name -> type, label names, file. Throws on one it cannot read. */
function registeredMetrics(): Map<string, Exported> {
  const metrics = new Map<string, Exported>();
  const unreadable: string[] = [];
  const dirs = ['apps', 'libs'].flatMap((top) =>
    readdirSync(path.join(ROOT, top))
      .filter((name) => name !== 'testing')
      .map((name) => path.join(ROOT, top, name, 'src')),
  );
  for (const file of dirs.flatMap((dir) => [...sourceFiles(dir)])) {
    const text = readFileSync(file, 'utf8');
    if (!text.includes("from 'prom-client'")) continue;
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
    // `const X = <initializer>` of this file, to resolve names and spread options.
    const consts = new Map<string, ts.Expression>();
    const collectConsts = (node: ts.Node): void => {
      if (ts.isVariableDeclaration(node) && ts.isIdentifier(node.name) && node.initializer) consts.set(node.name.text, node.initializer);
      ts.forEachChild(node, collectConsts);
    };
    collectConsts(source);
    const unwrap = (e: ts.Expression): ts.Expression =>
      ts.isAsExpression(e) || ts.isParenthesizedExpression(e) ? unwrap(e.expression) : e;
    const resolve = (e: ts.Expression): ts.Expression => {
      const inner = unwrap(e);
      return ts.isIdentifier(inner) && consts.has(inner.text) ? resolve(consts.get(inner.text)!) : inner;
    };
    /** The properties of an options object, spreads of local constants included. */
    const properties = (object: ts.ObjectLiteralExpression): Map<string, ts.Expression> => {
      const out = new Map<string, ts.Expression>();
      for (const p of object.properties) {
        if (ts.isPropertyAssignment(p) && (ts.isIdentifier(p.name) || ts.isStringLiteral(p.name))) out.set(p.name.text, p.initializer);
        else if (ts.isSpreadAssignment(p)) {
          const spread = resolve(p.expression);
          if (ts.isObjectLiteralExpression(spread)) for (const [k, v] of properties(spread)) out.set(k, v);
        }
      }
      return out;
    };
    const visit = (node: ts.Node): void => {
      if (ts.isNewExpression(node) && ts.isIdentifier(node.expression) && CONSTRUCTORS[node.expression.text]) {
        const where = `${path.relative(ROOT, file)}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1}`;
        const options = node.arguments?.[0] && resolve(node.arguments[0]);
        const props = options && ts.isObjectLiteralExpression(options) ? properties(options) : undefined;
        const name = props?.get('name') && resolve(props.get('name')!);
        if (!name || !ts.isStringLiteralLike(name)) unreadable.push(where);
        else {
          const labelList = props!.get('labelNames') && resolve(props!.get('labelNames')!);
          const labels = new Set(
            labelList && ts.isArrayLiteralExpression(labelList) ? labelList.elements.filter(ts.isStringLiteralLike).map((e) => e.text) : [],
          );
          metrics.set(name.text, { type: CONSTRUCTORS[node.expression.text], labels, where });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  if (unreadable.length > 0) throw new Error(`metric registrations whose name is not a literal (make it one): ${unreadable.join(', ')}`);
  return metrics;
}

/** Every series name a metric produces, with the labels each may carry. */
async function exportedSeries(): Promise<Map<string, Set<string>>> {
  const registry = createMetricsRegistry('probe');
  const defaults = await registry.getMetricsAsJSON();
  // The labels every series carries: the registry's default ones (service).
  const common = Object.keys(defaults.find((m) => m.name === 'process_start_time_seconds')!.values[0].labels);
  const metrics = registeredMetrics();
  for (const m of defaults)
    metrics.set(m.name, {
      type: m.type as unknown as MetricType,
      labels: new Set(m.values.flatMap((v) => Object.keys(v.labels))),
      where: 'prom-client default metrics',
    });
  const series = new Map<string, Set<string>>();
  for (const [name, { type, labels }] of metrics) {
    const all = new Set([...labels, ...common]);
    if (type === 'histogram') {
      series.set(`${name}_bucket`, new Set([...all, 'le']));
      series.set(`${name}_sum`, all);
      series.set(`${name}_count`, all);
    } else if (type === 'summary') {
      series.set(name, new Set([...all, 'quantile']));
      series.set(`${name}_sum`, all);
      series.set(`${name}_count`, all);
    } else series.set(name, all);
  }
  return series;
}

/** Labels Prometheus adds when scraping (kubernetes_sd with the usual relabelling), on every series. */
const TARGET_LABELS = ['job', 'instance', 'namespace', 'pod'];
/** Series Prometheus makes itself for every target: not exported by the services, so allowed by name. */
const SCRAPE_SERIES = new Map([['up', new Set(TARGET_LABELS)]]);

const PROMQL_WORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'bool',
  'and',
  'or',
  'unless',
  'offset',
  'inf',
  'nan',
]);

/** The selectors of a PromQL expression: metric names with the label names their matchers use. */
export function selectorsOf(expr: string): Array<{ metric: string; labels: string[] }> {
  const text = expr
    // Grouping clauses name labels, not metrics; ranges and durations are not names either.
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\[[^[\]]*\]/g, ' ')
    // Label matchers' values are strings: blank them before looking for names outside braces.
    .replace(/"(?:[^"\\]|\\.)*"/g, '""');
  const found: Array<{ metric: string; labels: string[] }> = [];
  for (const m of text.matchAll(/(?<![\w.$:])([a-zA-Z_:][\w:]*)(\{[^}]*\})?/g)) {
    const [whole, name, braces] = m;
    const call = text
      .slice(m.index + whole.length)
      .trimStart()
      .startsWith('(');
    if (call || PROMQL_WORDS.has(name.toLowerCase())) continue;
    const labels = (braces ?? '{}')
      .slice(1, -1)
      .split(',')
      .map((matcher) => /^\s*([a-zA-Z_]\w*)/.exec(matcher)?.[1])
      .filter((label): label is string => label !== undefined);
    found.push({ metric: name, labels });
  }
  return found;
}

interface Panel {
  id?: number;
  type: string;
  title?: string;
  panels?: Panel[];
  targets?: Array<{ expr?: string; refId?: string; datasource?: unknown }>;
  gridPos?: { h: number; w: number; x: number; y: number };
}
interface Dashboard {
  uid: string;
  title: string;
  panels: Panel[];
  templating?: { list: Array<{ query?: unknown }> };
}
interface Rule {
  alert?: string;
  record?: string;
  expr: string;
  for?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}

const dashboard = JSON.parse(readFileSync(DASHBOARD, 'utf8')) as Dashboard;
const alertsFile = parse(readFileSync(ALERTS, 'utf8')) as {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec: { groups: Array<{ name: string; rules: Rule[] }> };
};
const rules = alertsFile.spec.groups.flatMap((g) => g.rules);
const panels = dashboard.panels.flatMap((p) => [p, ...(p.panels ?? [])]);
const dashboardExprs = panels.flatMap((p) => (p.targets ?? []).map((t) => ({ where: `panel "${p.title}"`, expr: t.expr ?? '' })));

describe('PromQL selector extraction', () => {
  it('finds metric names and matcher labels, not functions, grouping labels, ranges or strings', () => {
    expect(
      selectorsOf(
        'histogram_quantile(0.99, sum by (le, subject) (rate(x_seconds_bucket{service="crm-core",a=~"b|c"}[$__rate_interval]))) / on(job) y_total > 0.5 and absent(z{k!="v"}) offset 5m',
      ),
    ).toEqual([
      { metric: 'x_seconds_bucket', labels: ['service', 'a'] },
      { metric: 'y_total', labels: [] },
      { metric: 'z', labels: ['k'] },
    ]);
  });
});

describe('deploy/observability', () => {
  let series: Map<string, Set<string>>;
  beforeAll(async () => {
    series = await exportedSeries();
  });

  it('reads the metric registrations of the code (a sanity check of the reader)', () => {
    for (const name of [
      'http_requests_total',
      'nats_server_request_duration_seconds_bucket',
      'crm_outbox_oldest_pending_age_seconds',
      'pg_pool_waiting_clients',
      'webhook_queue_depth',
      'process_start_time_seconds',
    ])
      expect(series.has(name)).toBe(true);
  });

  const references = () => [...dashboardExprs, ...rules.map((r) => ({ where: `rule ${r.alert ?? r.record}`, expr: r.expr }))];

  it('names only metrics the services export, with labels those metrics carry', () => {
    const problems: string[] = [];
    for (const { where, expr } of references()) {
      const selectors = selectorsOf(expr);
      if (selectors.length === 0) problems.push(`${where}: no metric found in ${expr}`);
      for (const { metric, labels } of selectors) {
        const known = series.get(metric) ?? SCRAPE_SERIES.get(metric);
        if (!known) {
          problems.push(`${where}: ${metric} is not exported by any service`);
          continue;
        }
        for (const label of labels)
          if (!known.has(label) && !TARGET_LABELS.includes(label)) problems.push(`${where}: ${metric} has no label ${label}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('the dashboard: unique panel ids, every query on the datasource variable with a refId, panels inside the 24-column grid', () => {
    expect(dashboard.uid).toMatch(/^[a-z0-9-]{1,40}$/);
    const ids = panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of panels) {
      expect(p.gridPos).toBeDefined();
      expect(p.gridPos!.x + p.gridPos!.w).toBeLessThanOrEqual(24);
      for (const t of p.targets ?? []) {
        expect(t.refId).toMatch(/^[A-Z]$/);
        expect(t.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });
      }
    }
    // What the dashboard is for: one row each.
    const rows = panels.filter((p) => p.type === 'row').map((p) => p.title);
    expect(rows).toEqual([
      'API gateway: rate, errors, duration',
      'crm-core: per-subject rate, errors, duration',
      'PostgreSQL pools',
      'Outbox (crm-core -> JetStream)',
      'Webhook deliveries',
      'Auth',
      'Processes',
    ]);
  });

  it('the alert rules: a PrometheusRule whose rules have a severity, a summary and a wait', () => {
    expect(alertsFile).toMatchObject({ apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule' });
    for (const rule of rules) {
      expect(rule.alert).toMatch(/^Crm[A-Za-z0-9]+$/);
      expect(['critical', 'warning']).toContain(rule.labels?.severity);
      expect(rule.annotations?.summary).toBeTruthy();
      expect(rule.for).toMatch(/^\d+m$/);
      // Balanced brackets: a cheap guard against a broken expression.
      for (const [open, close] of ['()', '{}', '[]']) expect(rule.expr.split(open).length).toBe(rule.expr.split(close).length);
    }
    expect(rules.map((r) => r.alert).sort()).toEqual(
      [
        'CrmCoreSubjectLatencyP99',
        'CrmCoreSubjectServerErrors',
        'CrmHighHttp5xxRate',
        'CrmHighHttpLatencyP99',
        'CrmOutboxBacklogAge',
        'CrmOutboxEventsParked',
        'CrmOutboxRelayLagHigh',
        'CrmPgPoolWaiting',
        'CrmScrapeTargetDown',
        'CrmServiceDown',
        'CrmWebhookBacklog',
        'CrmWebhookFailureRate',
        'CrmWebhookNoIngester',
      ].sort(),
    );
  });
});
