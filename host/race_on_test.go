//go:build race

package host

// raceEnabled is set when the tests run with the race detector, under
// which sync.Pool drops what is put in it (regexp's matchers, for one):
// allocation counts then say little.
const raceEnabled = true
