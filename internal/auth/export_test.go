package auth

// PruneThrottleSQL is the prune's statement, for a test of its plan.
const PruneThrottleSQL = pruneThrottleSQL
