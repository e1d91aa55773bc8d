package doccheck

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestModuleDocComments runs the check on the whole module, the root of which
// is two directories up from this package, and fails on every problem.
func TestModuleDocComments(t *testing.T) {
	problems, err := Check(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) == 0 {
		return
	}
	lines := make([]string, len(problems))
	for i, p := range problems {
		lines[i] = p.String()
	}
	t.Errorf("doc comments that do not follow go.dev/doc/comment (file:line: problem):\n%s", strings.Join(lines, "\n"))
}
