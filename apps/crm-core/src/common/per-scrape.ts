/**
 * `read` for metric gauges read at scrape time: one call serves every gauge of a scrape (it is
 * reused for `windowMs`); a failed read gives undefined, and the gauges keep their last value.
 */
export function perScrape<T>(read: () => Promise<T>, windowMs = 1000): () => Promise<T | undefined> {
  let last: { at: number; value: Promise<T | undefined> } | undefined;
  return () => {
    const now = Date.now();
    if (!last || now - last.at > windowMs) last = { at: now, value: read().catch(() => undefined) };
    return last.value;
  };
}
