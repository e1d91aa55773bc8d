package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/testserver"
)

// The gallery's recipes run for real here where that is cheap: against a
// loopback server that answers as the real API does, or, for git, a
// temporary repository. host's TestGalleryRecipes loads every recipe and
// runs its recorded examples.

// galleryCall runs toolhost call on a recipe's config with env added and
// returns stdout, stderr and whether it exited 0.
func galleryCall(t *testing.T, recipe string, env []string, args ...string) (string, string, bool) {
	t.Helper()
	cfg := filepath.Join("..", "..", "examples", recipe, "tools.hcl")
	cmd := exec.Command(binPath, append([]string{"call", cfg}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return stdout.String(), stderr.String(), err == nil
}

// galleryJSON is galleryCall for a call that must succeed with a JSON
// result.
func galleryJSON(t *testing.T, recipe string, env []string, args ...string) map[string]any {
	t.Helper()
	out, stderr, ok := galleryCall(t, recipe, env, args...)
	if !ok {
		t.Fatalf("call %v failed: %s", args, stderr)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("call %v: output is not JSON: %q", args, out)
	}
	return m
}

// TestGalleryOpenAPIImport runs the import command that
// examples/openapi/README.md shows again, and compares what it writes
// with the committed tools.hcl, so the recipe shows what the importer
// makes today.
func TestGalleryOpenAPIImport(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "examples", "openapi", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	sc := bufio.NewScanner(bytes.NewReader(readme))
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "toolhost import openapi "); ok {
			args = append([]string{"import", "openapi"}, strings.Fields(rest)...)
		}
	}
	i := slices.Index(args, "-o")
	if i < 0 || i+1 >= len(args) {
		t.Fatalf("examples/openapi/README.md shows no `toolhost import openapi ... -o FILE` line: %q", args)
	}
	committed := filepath.Join("..", "..", filepath.FromSlash(args[i+1]))
	args[i+1] = filepath.Join(t.TempDir(), "tools.hcl")
	cmd := exec.Command(binPath, args...)
	cmd.Dir = filepath.Join("..", "..")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("toolhost %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	got, err := os.ReadFile(args[i+1])
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("the import differs from examples/openapi/tools.hcl: run the command of examples/openapi/README.md from the repository's root and review the diff. It writes:\n%s", got)
	}
}

// TestGalleryOpenAPICalls calls the imported Petstore tools against a
// loopback server that answers as petstore3.swagger.io does.
func TestGalleryOpenAPICalls(t *testing.T) {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /pet/findByStatus", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer pet-token" || r.URL.Query().Get("status") != "sold" {
			http.Error(w, "want the bearer token and status=sold", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`[{"id":7,"name":"Rex","category":{"id":1,"name":"Dogs"},"photoUrls":["https://example.com/rex.jpg"],"tags":[],"status":"sold"}]`))
	})
	mux.HandleFunc("GET /pet/{id}", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("api_key") != "pet-key" || r.PathValue("id") != "7" {
			http.Error(w, "want the api_key header and pet 7", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"id":7,"name":"Rex","photoUrls":[],"status":"sold"}`))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	env := []string{"SWAGGER_PETSTORE_OPENAPI_BASE_URL=" + srv.URL, "SWAGGER_PETSTORE_OPENAPI_TOKEN=pet-token", "SWAGGER_PETSTORE_OPENAPI_API_KEY=pet-key"}

	t.Run("find by status", func(t *testing.T) {
		m := galleryJSON(t, "openapi", env, "find_pets_by_status", "status=sold")
		items, _ := m["items"].([]any)
		if len(items) != 1 || items[0].(map[string]any)["name"] != "Rex" {
			t.Errorf("result = %v", m)
		}
	})
	t.Run("by id", func(t *testing.T) {
		m := galleryJSON(t, "openapi", env, "get_pet_by_id", "pet_id=7")
		if m["name"] != "Rex" || m["status"] != "sold" {
			t.Errorf("result = %v", m)
		}
	})
}

// TestGalleryGitHub calls the github recipe's tools against a loopback
// server that answers with the recipe's recorded GitHub responses, checks
// the headers GitHub asks for, and that the token stays out of an error.
func TestGalleryGitHub(t *testing.T) {
	const token = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
	testdata := filepath.Join("..", "..", "examples", "github", "testdata")
	serve := func(file string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer "+token || r.Header.Get("Accept") != "application/vnd.github+json" || r.Header.Get("X-GitHub-Api-Version") == "" {
				http.Error(w, `{"message":"Bad credentials"}`, http.StatusUnauthorized)
				return
			}
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			http.ServeFile(w, r, filepath.Join(testdata, file))
		}
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /users/octocat/repos", serve("repos.json"))
	mux.HandleFunc("GET /repos/octocat/Hello-World/issues", serve("issues.json"))
	mux.HandleFunc("GET /repos/octocat/Hello-World/issues/3412", serve("issue.json"))
	mux.HandleFunc("GET /search/code", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("q") != "func main repo:octocat/Hello-World" {
			http.Error(w, `{"message":"Validation Failed"}`, http.StatusUnprocessableEntity)
			return
		}
		serve("search-code.json")(w, r)
	})
	// An upstream that echoes the credential it got, as some do in errors.
	mux.HandleFunc("GET /repos/octocat/echo/issues", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"message":"token `+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")+` lacks scope"}`, http.StatusForbidden)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	env := []string{"GITHUB_API_URL=" + srv.URL, "GITHUB_TOKEN=" + token}

	t.Run("list repos", func(t *testing.T) {
		m := galleryJSON(t, "github", env, "list_repos", "owner=octocat")
		repos, _ := m["repos"].([]any)
		if len(repos) != 2 || repos[0].(map[string]any)["full_name"] != "octocat/Hello-World" {
			t.Errorf("result = %v", m)
		}
	})
	t.Run("list issues", func(t *testing.T) {
		m := galleryJSON(t, "github", env, "list_issues", "owner=octocat", "repo=Hello-World", "labels=docs")
		if authors, _ := m["authors"].([]any); len(authors) != 2 || authors[0] != "someone" {
			t.Errorf("result = %v", m)
		}
	})
	t.Run("get issue", func(t *testing.T) {
		m := galleryJSON(t, "github", env, "get_issue", "owner=octocat", "repo=Hello-World", "number=3412")
		if m["title"] != "Typo in README" || m["author"] != "someone" {
			t.Errorf("result = %v", m)
		}
	})
	t.Run("search code", func(t *testing.T) {
		m := galleryJSON(t, "github", env, "search_code", "query=func main repo:octocat/Hello-World")
		if m["total_count"] != float64(1) {
			t.Errorf("result = %v", m)
		}
	})
	t.Run("token kept out of an error", func(t *testing.T) {
		out, stderr, ok := galleryCall(t, "github", env, "list_issues", "owner=octocat", "repo=echo")
		if ok {
			t.Fatalf("a 403 succeeded: %s", out)
		}
		if !strings.Contains(stderr, "403") || strings.Contains(stderr+out, token) {
			t.Errorf("the error should give the status and hide the token: %s", stderr)
		}
	})
}

// TestGalleryGit runs the git recipe's tools on a temporary repository.
func TestGalleryGit(t *testing.T) {
	gitDir := testserver.Find(t, "git", "", "git")
	git := filepath.Join(gitDir, "git")
	repo := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(git, args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=Ada Lovelace", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_COMMITTER_NAME=Ada Lovelace", "GIT_COMMITTER_EMAIL=ada@example.com", "GIT_CONFIG_NOSYSTEM=1", "HOME="+repo)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	write := func(name, text string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(repo, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(repo, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	run("init", "-q")
	write("README.md", "# calc\n")
	run("add", "README.md")
	run("commit", "-q", "-m", "docs: the title")
	write("src/calc.go", "package calc\n")
	run("add", "src/calc.go")
	run("commit", "-q", "-m", "calc: the package")
	write("README.md", "# calc\nA calculator.\n")
	write("notes.txt", "untracked\n")
	env := []string{"GIT_REPO=" + repo, "HOME=" + repo}

	call := func(args ...string) string {
		t.Helper()
		out, stderr, ok := galleryCall(t, "git", env, args...)
		if !ok {
			t.Fatalf("call %v failed: %s", args, stderr)
		}
		return out
	}
	t.Run("log", func(t *testing.T) {
		out := call("git_log")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if len(lines) != 2 || !strings.HasSuffix(lines[0], "\tcalc: the package") || !strings.Contains(lines[0], "\tAda Lovelace\t") {
			t.Errorf("log = %q", out)
		}
		if out := call("git_log", "path=src"); strings.Count(strings.TrimSpace(out), "\n") != 0 || !strings.Contains(out, "calc: the package") {
			t.Errorf("log of src = %q", out)
		}
	})
	t.Run("show", func(t *testing.T) {
		if out := call("git_show", "rev=HEAD~1"); !strings.Contains(out, "docs: the title") || !strings.Contains(out, "+# calc") {
			t.Errorf("show = %q", out)
		}
	})
	t.Run("diff", func(t *testing.T) {
		if out := call("git_diff"); !strings.Contains(out, "+A calculator.") {
			t.Errorf("diff = %q", out)
		}
	})
	t.Run("blame", func(t *testing.T) {
		if out := call("git_blame", "path=src/calc.go"); !strings.Contains(out, "Ada Lovelace") || !strings.Contains(out, "package calc") {
			t.Errorf("blame = %q", out)
		}
	})
	t.Run("status", func(t *testing.T) {
		if out := call("git_status"); !strings.Contains(out, " M README.md") || !strings.Contains(out, "?? notes.txt") {
			t.Errorf("status = %q", out)
		}
	})
	t.Run("refused", func(t *testing.T) {
		for _, args := range [][]string{
			{"git_log", "path=../outside"},
			{"git_log", "path=/etc/passwd"},
			{"git_log", "path=:(top)x"},
			{"git_show", "rev=--output=" + filepath.Join(repo, "x")},
			{"git_blame", "path=-L1,1"},
		} {
			if out, stderr, ok := galleryCall(t, "git", env, args...); ok || !strings.Contains(stderr, "pattern") {
				t.Errorf("call %v: ok=%v, out %q, stderr %q; want a refusal by the pattern", args, ok, out, stderr)
			}
		}
		if _, err := os.Stat(filepath.Join(repo, "x")); err == nil {
			t.Error("git_show wrote a file")
		}
	})
}
