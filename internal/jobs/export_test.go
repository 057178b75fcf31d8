package jobs

// The dead-letter page's and the stranded-work check's statements, for the
// tests of their plans.
var (
	DeadLettersQuery      = deadLettersQuery
	CountDeadLettersQuery = countDeadLettersQuery
	StrandedChecks        = []string{strandedOutOfAttemptsSQL, strandedLaunchedSQL, strandedApprovedSQL, strandedReceivedSQL, strandedRunSQL}
)
