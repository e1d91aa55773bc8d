package doccheck

import (
	"path/filepath"
	"strings"
	"testing"
)

// pending lists the directories of the module (with what is under them)
// whose doc comments are still to fix. TestModuleDocComments lets their
// problems through, and fails once one of them has none left, so that the
// list is emptied as they are fixed.
var pending = []string{
	"internal/cli",
}

// TestModuleDocComments runs the check on the whole module, the root of which
// is two directories up from this package.
func TestModuleDocComments(t *testing.T) {
	problems, err := Check(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	left := map[string]int{}
	var failed []string
	for _, p := range problems {
		if dir, ok := pendingDir(p.Pos.Filename); ok {
			left[dir]++
			continue
		}
		failed = append(failed, p.String())
	}
	if len(failed) > 0 {
		t.Errorf("doc comments that do not follow go.dev/doc/comment (file:line: problem):\n%s", strings.Join(failed, "\n"))
	}
	for _, dir := range pending {
		if left[dir] == 0 {
			t.Errorf("%s has no doc comment problems left: remove it from pending", dir)
		} else {
			t.Logf("%s: %d doc comment problems still pending", dir, left[dir])
		}
	}
}

// pendingDir returns the entry of pending that holds a file, given by its
// slash-separated path from the module root.
func pendingDir(file string) (string, bool) {
	for _, dir := range pending {
		if strings.HasPrefix(file, dir+"/") {
			return dir, true
		}
	}
	return "", false
}
