/**
 * An injectable clock for tests of token lifetimes (10-minute codes, 7/30-day idle and 90/365-day
 * absolute refresh limits) without sleeping: only when ENABLE_TEST_CLOCK=true, never in
 * production (the configuration refuses it). It shifts this process's Date.now.
 */
const realNow = Date.now.bind(Date);
let offsetMs = 0;

export function installTestClock(): void {
  Date.now = () => realNow() + offsetMs;
}

export function setClockOffset(seconds: number): number {
  offsetMs = seconds * 1000;
  return Math.floor(Date.now() / 1000);
}
