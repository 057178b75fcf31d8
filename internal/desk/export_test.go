package desk

// The statements the desk's tabs send, for the tests that read their plans.
var (
	TabCountsSQL = tabCountsSQL
	QueueQuery   = queueQuery
)
var ListQuery = listQuery
