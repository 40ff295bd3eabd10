// setupFilesAfterEnv of the topology tier: one file brings the whole production shape up (about a
// minute), then runs the journey and the drills, each a test of its own. TEST_TIMEOUT_MS overrides it.
jest.setTimeout(Number(process.env.TEST_TIMEOUT_MS) || 300_000);
