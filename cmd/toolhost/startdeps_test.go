package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// startCosts are packages kept out of the binary because their package
// initialisation ran at every start of every command, serve included,
// and what took their place (BENCHMARKS.md has the figures). Each entry
// is an import path, or a prefix of one ending in "/".
var startCosts = map[string]string{
	"github.com/prometheus/client_golang/":   "its default registry's collectors: internal/telemetry writes /metrics itself",
	"golang.org/x/text/encoding/htmlindex":   "builds its map and loads golang.org/x/text/language: internal/charset has its own table",
	"golang.org/x/net/trace":                 "gRPC links it (and html/template) without the grpcnotrace tag the release builds with",
	"github.com/santhosh-tekuri/jsonschema/": "its init compiles every JSON Schema draft's meta-schema (kin-openapi's openapi3 linked it): import openapi reads documents with libopenapi",
}

// TestStartLinksNoCostlyInit checks that the binary, built as the release
// builds it, links none of startCosts. It needs the go command, which a
// Windows test binary run under wine does not have; the Linux run checks
// the Windows build's packages too.
func TestStartLinksNoCostlyInit(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("there is no go command to list the binary's packages with")
	}
	for _, goos := range []string{"linux", "windows", "darwin"} {
		t.Run(goos, func(t *testing.T) { checkStartDeps(t, goos) })
	}
}

// checkStartDeps checks the packages of the binary for goos.
func checkStartDeps(t *testing.T, goos string) {
	cmd := exec.Command("go", "list", "-tags", "grpcnotrace", "-deps", ".")
	cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, pkg := range strings.Fields(string(out)) {
		for prefix, why := range startCosts {
			if pkg == prefix || strings.HasSuffix(prefix, "/") && strings.HasPrefix(pkg, prefix) {
				t.Errorf("toolhost for %s links %s, whose package initialisation every start would pay (%s); find what imports it with go list -deps -f '{{.ImportPath}} {{.Imports}}' ./cmd/toolhost", goos, pkg, why)
			}
		}
	}
}
