// Package suggest finds the name a misspelt one was meant to be, for the
// "Did you mean" of a diagnostic or an error. It is the one rule of every
// such hint in toolhost: the config's, the backends' and the host's.
package suggest

import (
	"fmt"
	"strings"

	"github.com/agext/levenshtein"
)

// maxDistance is the most edits (insertions, deletions, substitutions of
// one character) a suggested name may be from the given one, the rule HCL
// uses for its own "Did you mean" hints.
const maxDistance = 2

// Closest returns the candidate closest to given, or "" when none is close.
// A candidate is close when it is at most two edits from given; between
// equally close ones, the first by name wins, so that the suggestion does
// not depend on the candidates' order (often a map's). When none is close,
// a candidate that differs from given only in case is returned, as
// "GET_WEATHER" for "get_weather".
func Closest(given string, candidates []string) string {
	best, bestDist := "", maxDistance+1
	for _, c := range candidates {
		if d := levenshtein.Distance(given, c, nil); d < bestDist || d == bestDist && best != "" && c < best {
			best, bestDist = c, d
		}
	}
	if best != "" {
		return best
	}
	for _, c := range candidates {
		if strings.EqualFold(given, c) && (best == "" || c < best) {
			best = c
		}
	}
	return best
}

// Hint is the sentence that ends a diagnostic's detail with the candidate
// closest to given, ` Did you mean "name"?` with its leading space, or ""
// when none is close.
func Hint(given string, candidates []string) string {
	s := Closest(given, candidates)
	if s == "" {
		return ""
	}
	return fmt.Sprintf(" Did you mean %q?", s)
}
