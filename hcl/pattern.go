package hcl

import (
	"regexp"
	"regexp/syntax"
	"sync"
)

// Pattern is a param's pattern: an RE2 regular expression checked when the
// config loads and compiled the first time a value is matched against it.
// Compiling is the costly part (a counted repetition such as {0,127}
// becomes 127 copies of its class), and most patterns of a config are
// never used in a session, so a start does not pay for them.
type Pattern struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

// NewPattern checks the syntax of src and returns its Pattern, or the
// error regexp.Compile would give (it parses the same way).
func NewPattern(src string) (*Pattern, error) {
	if _, err := syntax.Parse(src, syntax.Perl); err != nil {
		return nil, err
	}
	return &Pattern{src: src}, nil
}

// String returns the pattern's source.
func (p *Pattern) String() string { return p.src }

// MatchString reports whether s contains a match of the pattern.
func (p *Pattern) MatchString(s string) bool {
	p.once.Do(func() {
		// The syntax was checked by NewPattern, and compiling a parsed
		// expression does not fail; should it, nothing matches, so that
		// values are refused rather than let through.
		p.re, _ = regexp.Compile(p.src)
	})
	return p.re != nil && p.re.MatchString(s)
}
