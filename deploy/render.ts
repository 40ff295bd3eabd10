// Renders a kustomize overlay of deploy/k8s the way `kubectl apply -k` does, for the deploy tests.
// Needs `kubectl` (1.27 or newer: kustomize v5) or a standalone `kustomize` on the PATH; without
// either the tests fail with that message rather than check nothing.
import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { parseAllDocuments } from 'yaml';

export const K8S_DIR = path.join(__dirname, 'k8s');
export const OVERLAYS = ['development', 'production'] as const;
export type Overlay = (typeof OVERLAYS)[number];

export interface K8sObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
}

const cache = new Map<string, K8sObject[]>();

function kustomize(dir: string): string {
  const attempts: Array<[string, string[]]> = [
    ['kubectl', ['kustomize', dir]],
    ['kustomize', ['build', dir]],
  ];
  const problems: string[] = [];
  for (const [command, args] of attempts) {
    try {
      return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'], maxBuffer: 16 * 1024 * 1024 });
    } catch (error) {
      const e = error as NodeJS.ErrnoException & { stderr?: string };
      if (e.code === 'ENOENT') {
        problems.push(`${command}: not found`);
        continue;
      }
      throw new Error(`${command} ${args.join(' ')} failed:\n${e.stderr ?? e.message}`);
    }
  }
  throw new Error(
    `cannot render ${path.relative(process.cwd(), dir)}: the deploy tests need kubectl (1.27+, kustomize v5) or kustomize on the PATH (${problems.join('; ')})`,
  );
}

/** The objects `kubectl apply -k deploy/k8s/<dir>` would apply (dir: "base" or "overlays/<name>"). */
export function render(dir: string): K8sObject[] {
  const cached = cache.get(dir);
  if (cached) return cached;
  const docs = parseAllDocuments(kustomize(path.join(K8S_DIR, dir)));
  const list = Array.isArray(docs) ? docs : [];
  const problems = list.flatMap((d) => d.errors.map((e) => e.message));
  if (problems.length > 0) throw new Error(problems.join('\n'));
  const objects = list.map((d) => d.toJS() as K8sObject).filter((d) => d !== null && d !== undefined);
  cache.set(dir, objects);
  return objects;
}

export const renderOverlay = (overlay: Overlay): K8sObject[] => render(`overlays/${overlay}`);
