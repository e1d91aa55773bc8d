package doccheck

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCheck runs the check on the fixtures in testdata, each a tree of its
// own.
func TestCheck(t *testing.T) {
	tests := []struct {
		dir  string
		want []string
	}{
		{dir: "good", want: nil},
		{dir: "bad/decls", want: []string{
			`decls.go:4: doc comment of Run should start with its name, not "runs"`,
			`decls.go:7: doc comment of run should start with its name, not "A"`,
			`decls.go:10: doc comment of Shut should start with its name, not "Close"`,
			`decls.go:13: doc comment names Server but sits above Client`,
			`decls.go:16: doc comment of Server should start with its name, not "a"`,
			`decls.go:19: doc comment of Limit should start with its name, not "limit"`,
			`decls.go:22: doc comment of Min should start with its name, not "An"`,
			`decls.go:26: doc comment names Low but sits above High`,
			`decls.go:32: doc comment of max should start with its name, not "The"`,
			`decls.go:37: doc comment of Sort should start with its name, not "Sorts"`,
			`decls.go:41: doc comment of Old should start with its name, not "See"`,
			`decls_test.go:5: doc comment of TestRun should start with its name, not "Tests"`,
		}},
		{dir: "bad/nodoc", want: []string{
			`a.go:1: package nodoc has no package comment`,
		}},
		{dir: "bad/twodocs", want: []string{
			`b.go:1: package twodocs has a second package comment, besides the one in a.go`,
		}},
		{dir: "bad/pkgword", want: []string{
			`p.go:1: package comment should start "Package pkgword", not "pkgword"`,
		}},
		{dir: "bad/testdoc", want: []string{
			`t_test.go:1: package comment of testdoc in a test file, where go doc does not show it`,
		}},
		{dir: "bad/command", want: []string{
			`mycmd/main.go:1: package comment should start "Package main", not "Serves"`,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.dir, func(t *testing.T) {
			problems, err := Check(filepath.Join("testdata", tt.dir))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, p := range problems {
				got = append(got, p.String())
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("Check(%s):\n%s\nwant:\n%s", tt.dir, strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}
