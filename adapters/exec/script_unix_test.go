//go:build unix

package exec

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/zclconf/go-cty/cty"
)

// TestExecScriptSafeFormRuns: the form the diagnostics name runs a value
// that would inject code as data, in a real shell.
func TestExecScriptSafeFormRuns(t *testing.T) {
	t.Parallel()
	f := defaultFixture()
	marker := filepath.Join(t.TempDir(), "pwned")
	for _, body := range []string{
		`command = concat(["sh", "-c", "echo \"$1\"", "sh"], [param.text])`,
		"command = [\"sh\", \"-s\", \"--\", param.text]\nstdin = \"echo \\\"$1\\\"\"",
	} {
		e := f.mustCompile(t, body)
		value := fmt.Sprintf("x' /dev/null; touch %s; echo '", marker)
		out, err := f.call(t, context.Background(), e, map[string]cty.Value{"text": cty.StringVal(value)})
		if err != nil {
			t.Fatalf("%s: call: %v", body, err)
		}
		if got := string(out.Body); got != value+"\n" {
			t.Errorf("%s: body = %q, want the value", body, got)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("%s: the value ran as code", body)
		}
	}
}

// TestExecScriptOptionsMatchPrograms: the element the check takes for the
// script is the one the real program runs as code, and one it takes for
// an argument of a script file is not run. Each form runs with a fixed
// script that creates a marker, then is compiled with a parameter in the
// same place: it must be refused exactly when the marker appears.
func TestExecScriptOptionsMatchPrograms(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	files := map[string]string{"script.sh": "true\n", "script.py": "import sys\n", "notes.txt": "hello\n", "--sandbox": "p\n"}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// In each command, SCRIPT is the element: the script that touches the
	// marker (in sed's, its e command), then one made from a parameter.
	tests := []struct {
		name, command string
		runs          bool
	}{
		{"bash -co", `["bash", "-co", "pipefail", SCRIPT]`, true},
		{"bash -oc", `["bash", "-oc", "pipefail", SCRIPT]`, true},
		{"sh -eco", `["sh", "-eco", "errexit", SCRIPT]`, true},
		{"bash -cOo", `["bash", "-cOo", "extglob", "pipefail", SCRIPT]`, true},
		{"bash -Ec", `["bash", "-Ec", SCRIPT]`, true},
		{"bash -cE", `["bash", "-cE", SCRIPT]`, true},
		{"bash +c", `["bash", "+c", SCRIPT]`, true},
		{"dash +ec", `["dash", "+ec", SCRIPT]`, true},
		{"bash -c before options", `["bash", "-c", "-e", "+o", "posix", SCRIPT]`, true},
		{"env -S sh -e -c", `["env", "-S", "sh -e -c", SCRIPT]`, true},
		{"env -S sh -ec", `["env", "-S", "sh -ec", SCRIPT]`, true},
		{"env -S timeout", `["env", "-S", "timeout 5 sh -c", SCRIPT]`, true},
		{"env -S glued", `["env", "-Ssh -c", SCRIPT]`, true},
		{"env -iS", `["env", "-iS", "sh -c", SCRIPT]`, true},
		{"env --split=", `["env", "--split=sh -c", SCRIPT]`, true},
		{"env -u then -S", `["env", "-u", "HOME", "-S", "sh -c", SCRIPT]`, true},
		{"env -S with quotes", `["env", "-S", "'s'\"h\" '-c'", SCRIPT]`, true},
		{"env -S with \\_", `["env", "-S", "sh\\_-c", SCRIPT]`, true},
		{"env -S ended by \\c", `["env", "-S", "sh -c\\c ignored", SCRIPT]`, true},
		{"env -S ended by a comment", `["env", "-S", "sh -c #ignored", SCRIPT]`, true},
		{"env -S in env -S", `["env", "-S", "env -S 'sh -c'", SCRIPT]`, true},
		{"sed --sandbox after --", `["sed", "-n", SCRIPT, "notes.txt", "--", "--sandbox"]`, true},
		{"sed --sandbox as -f's file", `["sed", "-n", "-f", "--sandbox", "-e", SCRIPT, "notes.txt"]`, true},
		{"sed --sandbox", `["sed", "-n", "--sandbox", SCRIPT, "notes.txt"]`, false},
		{"bash script.sh -c", `["bash", "script.sh", "-c", SCRIPT]`, false},
		{"sh -e -- script.sh -c", `["sh", "-e", "--", "script.sh", "-c", SCRIPT]`, false},
		{"bash -o pipefail script.sh -c", `["bash", "-o", "pipefail", "script.sh", "-c", SCRIPT]`, false},
		{"python3 script.py -c", `["python3", "script.py", "-c", SCRIPT]`, false},
		{"env -S with a script file", `["env", "-S", "sh script.sh -c", SCRIPT]`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			f := defaultFixture()
			f.baseDir = dir
			marker := filepath.Join(t.TempDir(), "ran")
			script, param := fmt.Sprintf(`"touch %s"`, marker), `"touch ${param.text}"`
			if strings.HasPrefix(tt.command, `["sed"`) {
				script, param = fmt.Sprintf(`"1e touch %s"`, marker), `"1e touch ${param.text}"`
			}
			e := f.mustCompile(t, "command = "+strings.Replace(tt.command, "SCRIPT", script, 1))
			// The program may fail after running the script (sed: no
			// file named --sandbox): the marker says what ran.
			_, callErr := f.call(t, context.Background(), e, nil)
			if _, err := os.Stat(marker); (err == nil) != tt.runs {
				t.Fatalf("the element ran as code: %v, want %v (call: %v)", err == nil, tt.runs, callErr)
			}
			_, errs := scriptErrors(t, f, "command = "+strings.Replace(tt.command, "SCRIPT", param, 1))
			if refused := len(errs) == 1 && errs[0].Summary == "Parameter inside a script"; refused != tt.runs {
				t.Errorf("refused = %v (%v), want %v", refused, errs, tt.runs)
			}
		})
	}
}

// TestExecSplitStringMatchesEnv: splitString splits a string into the
// words env -S gives the command, and refuses the strings env refuses.
func TestExecSplitStringMatchesEnv(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		`a b`, "  a\tb\n c  ", `'a b' "c d"`, `a'b'"c"d`, `''`, `""`, `'a\'b' 'c\\d' 'e\nf'`,
		`"a\tb\nc\"d\'e\\f\$g\#h\_i"`, `a\_b`, `\#a #b c`, `a #b c`, `a#b`, `a\cb c`, `"a\_b"`,
		`'unterminated`, `"unterminated`, `a\q`, `a\`, `a$b`, `"a\cb"`, `a${`,
	} {
		t.Run(s, func(t *testing.T) {
			t.Parallel()
			out, err := exec.Command("env", "-S", `printf '%s\\0' `+s).Output()
			words, ok := splitString(s)
			if (err == nil) != ok {
				t.Fatalf("env's error = %v, splitString ok = %v", err, ok)
			}
			if !ok {
				return
			}
			var want []string
			if len(out) > 0 {
				want = strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
			}
			// printf with no word prints its format once, with an empty %s.
			if len(words) == 0 {
				want = nil
			}
			if !slices.Equal(words, want) {
				t.Errorf("words = %q, env gives %q", words, want)
			}
		})
	}
}
