import { getMetadataStorage } from 'class-validator';

type Storage = ReturnType<typeof getMetadataStorage>;
type Metadatas = ReturnType<Storage['getTargetValidationMetadatas']>;
type Grouped = ReturnType<Storage['groupByPropertyName']>;

const installed = new WeakSet<Storage>();

/**
 * Remembers class-validator's answer to "which rules apply to this class" per class and options.
 * class-validator works it out again on every validate call, and for every nested object, by
 * walking the rules of every decorated class there is (an `instanceof` test per class for
 * inherited rules): 4% of the gateway's CPU on a small GET with our 125 request classes, and it
 * grows with every class added. Rules are registered by decorators when their modules load; any
 * rule added later (a schema, a decorator on a class loaded afterwards) empties the cache, so an
 * answer is never older than the rules. The returned arrays and groups are only read by
 * class-validator's executor.
 */
export function cacheValidationMetadata(storage: Storage = getMetadataStorage()): void {
  if (installed.has(storage)) return;
  installed.add(storage);
  const byTarget = new Map<unknown, Map<string, Metadatas>>();
  const groupedOf = new WeakMap<Metadatas, Grouped>();
  const lookup = storage.getTargetValidationMetadatas.bind(storage);
  const group = storage.groupByPropertyName.bind(storage);
  for (const method of ['addValidationMetadata', 'addValidationSchema', 'addConstraintMetadata'] as const) {
    const add = storage[method].bind(storage) as (arg: never) => void;
    (storage as unknown as Record<string, (arg: never) => void>)[method] = (arg: never) => {
      byTarget.clear();
      add(arg);
    };
  }
  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    const key = `${schema}\u0000${always}\u0000${strictGroups}\u0000${groups?.join('\u0001') ?? '-'}`;
    let forTarget = byTarget.get(target);
    if (!forTarget) byTarget.set(target, (forTarget = new Map()));
    let found = forTarget.get(key);
    if (!found) forTarget.set(key, (found = lookup(target, schema, always, strictGroups, groups)));
    return found;
  };
  storage.groupByPropertyName = (metadatas) => {
    let grouped = groupedOf.get(metadatas);
    if (!grouped) groupedOf.set(metadatas, (grouped = group(metadatas)));
    return grouped;
  };
}
