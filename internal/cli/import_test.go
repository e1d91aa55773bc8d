package cli

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportOpenAPI runs toolhost import openapi as a user would: a
// file or stdin, -o, --tag, --operation, the refusal of a large
// document without a selection, and the exit codes of its mistakes. The
// HCL written to a file must pass toolhost validate.
func TestImportOpenAPI(t *testing.T) {
	dir := t.TempDir()
	petstore := filepath.Join("..", "openapi", "testdata", "petstore-3.0.yaml")
	src, err := os.ReadFile(petstore)
	if err != nil {
		t.Fatal(err)
	}
	gz, err := os.Open(filepath.Join("..", "openapi", "testdata", "github-api.json.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer gz.Close()
	zr, err := gzip.NewReader(gz)
	if err != nil {
		t.Fatal(err)
	}
	github := filepath.Join(dir, "github.json")
	big, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(github, big, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("openapi: 3.0.0\npaths: [\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "tools.hcl")
	tests := []struct {
		name       string
		args       []string
		stdin      string
		code       int
		stdout     []string // each in stdout
		notStdout  []string
		stderr     []string
		validateIt string // a file to validate afterwards
	}{
		{name: "file", args: []string{"openapi", petstore}, stdout: []string{`tool "list_pets"`, `tool "show_pet_by_id"`, "SWAGGER_PETSTORE_BASE_URL"}},
		{name: "stdin", args: []string{"openapi", "-"}, stdin: string(src), stdout: []string{`tool "list_pets"`, "from standard input"}},
		{name: "output file", args: []string{"openapi", petstore, "-o", out}, notStdout: []string{"tool"}, validateIt: out},
		{name: "tag", args: []string{"openapi", "--tag", "pets", petstore}, stdout: []string{`tool "create_pets"`}},
		{name: "operation", args: []string{"openapi", petstore, "--operation", "showPetById"}, stdout: []string{`tool "show_pet_by_id"`}, notStdout: []string{`tool "list_pets"`}},
		{name: "operation by tool name", args: []string{"openapi", petstore, "--operation", "list_pets"}, stdout: []string{`tool "list_pets"`}, notStdout: []string{`tool "show_pet_by_id"`}},
		{name: "base url", args: []string{"openapi", petstore, "--base-url", "https://pets.example.com/"}, stdout: []string{`"https://pets.example.com")}/pets"`}},
		{name: "base url with credentials", args: []string{"openapi", petstore, "--base-url", "https://admin:hunter2@pets.example.com/?key=k"}, code: ExitUsage,
			stderr: []string{"https://admin:xxxxx@pets.example.com", "a user, a password, a query or a fragment"}, notStdout: []string{"hunter2", "tool"}},
		{name: "unknown tag", args: []string{"openapi", petstore, "--tag", "pet"}, code: ExitUsage, stderr: []string{`no operation tagged "pet"`, `Did you mean "pets"?`}},
		{name: "unknown operation", args: []string{"openapi", petstore, "--operation", "listPet"}, code: ExitUsage, stderr: []string{`"listPet"`, `Did you mean "listPets"?`}},
		{name: "large document", args: []string{"openapi", github}, code: ExitUsage, stderr: []string{"issues", "1223 operations", "--tag TAG"}, notStdout: []string{"tool"}},
		{name: "large document, chosen", args: []string{"openapi", github, "--tag", "emojis", "--operation", "meta/root"}, stdout: []string{`tool "emojis_get"`, `tool "meta_root"`}},
		{name: "not a document", args: []string{"openapi", bad}, code: ExitFailure, stderr: []string{bad}},
		{name: "missing file", args: []string{"openapi", filepath.Join(dir, "none.yaml")}, code: ExitFailure, stderr: []string{"none.yaml"}},
		{name: "no spec", args: []string{"openapi"}, code: ExitUsage, stderr: []string{"Usage: toolhost import openapi SPEC"}},
		{name: "other format", args: []string{"graphql", petstore}, code: ExitUsage, stderr: []string{"Usage: toolhost import openapi SPEC"}},
		{name: "bad flag", args: []string{"openapi", petstore, "--tags", "x"}, code: ExitUsage, stderr: []string{"tag"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := Run(context.Background(), append([]string{"import"}, tc.args...), strings.NewReader(tc.stdin), &stdout, &stderr)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr.String())
			}
			for _, w := range tc.stdout {
				if !strings.Contains(stdout.String(), w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout.String())
				}
			}
			for _, w := range tc.notStdout {
				if strings.Contains(stdout.String(), w) {
					t.Errorf("stdout has %q:\n%s", w, stdout.String())
				}
			}
			for _, w := range tc.stderr {
				if !strings.Contains(stderr.String(), w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
				}
			}
			if tc.validateIt != "" {
				var vout, verr bytes.Buffer
				if code := Run(context.Background(), []string{"validate", tc.validateIt}, nil, &vout, &verr); code != ExitOK {
					t.Errorf("validate %s: exit %d\n%s%s", tc.validateIt, code, vout.String(), verr.String())
				}
			}
		})
	}
}
