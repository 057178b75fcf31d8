//go:build !race

package web_test

// raceAllocFactor is 1 without the race detector: the bounds are the
// sidecars' own.
const raceAllocFactor = 1.0
