package decls

import "testing"

// Tests run in test files too.
func TestRun(t *testing.T) {}
