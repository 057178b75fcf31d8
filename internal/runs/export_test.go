package runs

// ListQuery and CountsQuery are the runs page's statements, for the tests
// of their plans.
var (
	ListQuery   = listQuery
	CountsQuery = countsQuery
)
