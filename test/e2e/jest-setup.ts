// setupFilesAfterEnv of the e2e tier: each file starts the four services (a few seconds) and
// some tests wait for timeouts on purpose. TEST_TIMEOUT_MS overrides it.
jest.setTimeout(Number(process.env.TEST_TIMEOUT_MS) || 120_000);
