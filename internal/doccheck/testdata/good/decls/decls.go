// Package decls has doc comments that follow Go's conventions.
package decls

import "fmt"

// Run runs.
func Run() {}

// run's doc may go on with punctuation after the name.
func run() {}

// A Client talks to a server.
type Client struct{}

// An Option configures a Client.
type Option func(*Client)

// The Server answers a Client.
type Server struct{}

// server is a type of another name, lower case.
type server struct{}

// Close closes the client.
func (c *Client) Close() error { return nil }

// Limit is a single constant.
const Limit = 3

// limits, a group: its own comment introduces the group and need not name
// anything.
const (
	// Low is the lowest.
	Low  = 1
	High = 9 // High has a line comment, which is no doc comment.
)

// min, max are declared together.
var max, min = 1, 2

// Kinds of things.
type (
	// Kind is a kind.
	Kind int
	// A Sort is a sort.
	Sort string
)

// Deprecated: Old is kept for old callers; use Run.
func Old() {}

// This comment is separated from the declaration by a blank line, so it is
// no doc comment.

func loose() {}

//go:noinline
func directiveOnly() {}

// withDirective carries a directive after its text.
//
//go:noinline
func withDirective() {}

// _ is fine for an interface guard.
var _ fmt.Stringer = Kind(0)

// String gives the kind's name.
func (k Kind) String() string { return "" }

// A is a type whose name is an article.
type A struct{}
