// E2E tests read many JSON answers whose shape the assertions check; fetch's Response.json()
// returns unknown, so in this test program it may be read as any (production code keeps unknown).
export {};
declare global {
  interface Response {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    json(): Promise<any>;
  }
}
