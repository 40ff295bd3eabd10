import { ApiError } from '@crm/contracts';

export interface Variant {
  id: string;
  name: string;
}

/** One variant = symmetrical (both contacts get the label); two = directional, with two different labels. */
export function checkNewVariants(variants: ReadonlyArray<{ name: string }>): void {
  if (variants.length === 2 && variants[0].name.toLowerCase() === variants[1].name.toLowerCase()) {
    throw ApiError.invalid({ variants: 'a directional type needs two different labels; use one variant for a symmetrical type' });
  }
}

/**
 * A rename names the complete variant set of the type by id (any letter case), each once:
 * adding, removing or switching kinds is refused, and directional labels stay different.
 * Returns the sent variants with normalized ids, and whether any label changes.
 */
export function checkVariantRenames(
  current: { symmetrical: boolean; variants: readonly Variant[] },
  sent: ReadonlyArray<{ id: string; name: string }>,
): { variants: Variant[]; changed: boolean } {
  const existing = new Map(current.variants.map((v) => [v.id, v.name]));
  const variants = sent.map((v) => ({ id: v.id.toLowerCase(), name: v.name }));
  const ids = variants.map((v) => v.id);
  if (new Set(ids).size !== ids.length) throw ApiError.invalid({ variants: 'each variant id may appear only once' });
  const unknown = ids.filter((id) => !existing.has(id));
  if (unknown.length > 0) throw ApiError.invalid({ variants: `unknown variant id(s) of this type: ${unknown.join(', ')}` });
  if (ids.length !== existing.size) {
    throw ApiError.invalid({
      variants: current.symmetrical
        ? 'a symmetrical type has exactly one variant; it cannot become directional'
        : 'a directional type has exactly two variants; list both, none can be removed',
    });
  }
  if (variants.length === 2 && variants[0].name.toLowerCase() === variants[1].name.toLowerCase()) {
    throw ApiError.invalid({ variants: 'the two labels of a directional type must differ' });
  }
  return { variants, changed: variants.some((v) => existing.get(v.id) !== v.name) };
}
