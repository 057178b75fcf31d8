//go:build race

package web_test

// raceAllocFactor widens the hostile corpus's allocation bounds under the
// race detector, which allocates shadow state beside every allocation the
// request makes: the same upload allocates about half again as much.
const raceAllocFactor = 1.5
