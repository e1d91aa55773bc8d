//go:build unix

package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestCommandsDoNotInheritToolhostsFiles: a file descriptor the client
// left open when it started toolhost (beyond stdin, stdout and stderr)
// does not reach the commands of exec tools.
func TestCommandsDoNotInheritToolhostsFiles(t *testing.T) {
	cfg := writeConfig(t, `
tool "fd3" {
  exec { command = ["sh", "-c", "if [ -e /proc/$$/fd/3 ]; then echo inherited; else echo closed; fi"] }
}
`)
	f, err := os.Open(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cmd := exec.Command(binPath, "call", cfg, "fd3")
	cmd.ExtraFiles = []*os.File{f} // fd 3 in toolhost
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("toolhost call: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != "closed" {
		t.Errorf("the command saw fd 3 %s; want it closed", got)
	}
}
