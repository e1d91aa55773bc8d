//go:build !race

package host

// raceEnabled is set when the tests run with the race detector.
const raceEnabled = false
