// setupFilesAfterEnv of the integration tier: tests talk to real servers and start
// Nest apps, so hooks and tests get more time than jest's 5 s default (a per-project testTimeout
// is not honoured by jest 30). TEST_TIMEOUT_MS overrides it.
jest.setTimeout(Number(process.env.TEST_TIMEOUT_MS) || 60_000);
