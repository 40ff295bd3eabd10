/**
 * UTC dates for checks that must hold when a test file runs across midnight. Jest loads this
 * module once per test file, so "the file's day" is the UTC date when the file began: every record
 * the file makes is created on it or later, and a date the server sets to "today" is that day or
 * the day of the check.
 */
const fileStartedAt = Date.now();

export const utcDate = (ms: number): string => new Date(ms).toISOString().slice(0, 10);

/** The UTC date `offset` days from the day this test file began (`since=` of day 0 covers every record it made). */
export const fileDay = (offset = 0): string => utcDate(fileStartedAt + offset * 86_400_000);

/** Matches a date the server set to "today" during this file: its first day, or today if it ran past midnight. */
export const aToday = () => expect.stringMatching(new RegExp(`^(${fileDay(0)}|${utcDate(Date.now())})$`));

/**
 * For a check that needs one date from its first request to its last (e.g. "actions due today"):
 * waits until UTC midnight is at least a minute away.
 */
export async function clearOfMidnight(marginMs = 60_000): Promise<void> {
  const left = 86_400_000 - (Date.now() % 86_400_000);
  if (left < marginMs) await new Promise((resolve) => setTimeout(resolve, left + 1_000));
}
