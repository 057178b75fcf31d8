package auth

// SetBeforePasswordCheck lets a test hold sign-ins just before they check a
// password (a barrier for concurrency tests).
func SetBeforePasswordCheck(s *Service, f func()) { s.beforePasswordCheck = f }

// PruneThrottleSQL is the prune's statement, for a test of its plan.
const PruneThrottleSQL = pruneThrottleSQL
