// Package decls has doc comments that break Go's conventions.
package decls

// runs runs, but its name is Run.
func Run() {}

// A Run is not allowed for a function.
func run() {}

// Close of the wrong name, a name this file does not declare.
func (c *Client) Shut() {}

// Server is the name of another type of this file.
type Client struct{}

// a Server answers: the article must be capitalized.
type Server struct{}

// limit is the name of nothing.
const Limit = 3

// An Min is no type.
var Min = 1

const (
	// Low: another name in the file, so it is in the wrong place.
	High = 9
	Low  = 1
)

var (
	// The max is no type either.
	max = 2
)

type (
	// Sorts are sorts.
	Sort string
)

// See Run: deprecated comments start "Deprecated:".
//
// Deprecated: use Run.
func Old() {}
