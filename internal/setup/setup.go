// Package setup registers toolhost with an editor that runs MCP servers: it
// finds the editor's JSON config file on the current system, merges an
// entry that starts toolhost serve with absolute paths into it, keeping the
// rest of the file as it was (comments and trailing commas included), and
// writes it back atomically with a backup of the old content. The command
// line (toolhost setup) only parses flags and wires it; docs/setup.md is
// the user's guide.
package setup

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
)

// DefaultName is the name of the entry setup writes unless told another.
const DefaultName = "toolhost"

// Editor is an MCP client whose config file setup knows.
type Editor struct {
	// Name is the editor's name on the command line, as "cursor".
	Name string
	// Title is the editor's name in messages, as "Cursor".
	Title string
	// ServersKey is the top-level key of the object that holds the
	// servers: "mcpServers", or "servers" for VS Code.
	ServersKey string
	// Typed editors want "type": "stdio" in a stdio server's entry.
	Typed bool
	// Indent is the indentation of a file setup creates, as the editor
	// itself writes its file.
	Indent string
	// Next is the step that makes the editor pick the entry up.
	Next string

	// file is where the editor's config is on p's system; user asks for
	// the user's file where the editor also has a workspace one.
	file func(p Place, user bool) (string, error)
}

// Place is what the location of a config file depends on: the operating
// system (as runtime.GOOS names it), the user's home directory, the
// working directory (for a workspace file) and the environment. The
// command line gives the real ones; tests give each system's layout.
type Place struct {
	GOOS   string
	Home   string
	Dir    string
	Getenv func(string) string
	// ReadDir lists the names in a directory, for a place that depends
	// on what is installed (Claude Desktop's Windows package); nil lists
	// nothing.
	ReadDir func(dir string) []string
}

// Editors are the editors setup knows, in the order usage lists them.
var Editors = []Editor{
	{
		Name: "claude-desktop", Title: "Claude Desktop", ServersKey: "mcpServers", Indent: "  ",
		Next: "quit Claude Desktop completely (from its menu, not by closing the window) and open it again; the tools are under the search and tools menu of a chat.",
		file: func(p Place, _ bool) (string, error) {
			if path, ok, err := claudeDesktopPackage(p); ok {
				return path, err
			}
			dir, err := appConfigDir(p)
			if err != nil {
				return "", err
			}
			return p.join(dir, "Claude", "claude_desktop_config.json"), nil
		},
	},
	{
		Name: "cursor", Title: "Cursor", ServersKey: "mcpServers", Indent: "  ",
		Next: "open Cursor Settings > MCP (Tools & Integrations) and turn the toolhost server on, or restart Cursor.",
		file: func(p Place, _ bool) (string, error) { return p.inHome(".cursor", "mcp.json") },
	},
	{
		Name: "vscode", Title: "VS Code", ServersKey: "servers", Typed: true, Indent: "\t",
		Next: "in VS Code run 'MCP: List Servers', pick toolhost and Start it (or run 'Developer: Reload Window'); trust it when asked.",
		file: func(p Place, user bool) (string, error) {
			if !user {
				if p.Dir == "" {
					return "", errors.New("cannot find the current directory, where the workspace's .vscode/mcp.json is: give --user for the user profile's file")
				}
				return p.join(p.Dir, ".vscode", "mcp.json"), nil
			}
			dir, err := appConfigDir(p)
			if err != nil {
				return "", err
			}
			return p.join(dir, "Code", "User", "mcp.json"), nil
		},
	},
	{
		Name: "claude-code", Title: "Claude Code", ServersKey: "mcpServers", Typed: true, Indent: "  ",
		Next: "start a new Claude Code session; /mcp in it (or claude mcp list) shows toolhost.",
		file: func(p Place, _ bool) (string, error) {
			// Claude Code keeps its user-scope servers in .claude.json,
			// in CLAUDE_CONFIG_DIR when that is set.
			if dir := p.Getenv("CLAUDE_CONFIG_DIR"); dir != "" && p.isAbs(dir) {
				return p.join(dir, ".claude.json"), nil
			}
			return p.inHome(".claude.json")
		},
	},
	{
		Name: "windsurf", Title: "Windsurf", ServersKey: "mcpServers", Indent: "  ",
		Next: "in Windsurf open Cascade's MCP servers panel and press Refresh, or restart Windsurf.",
		file: func(p Place, _ bool) (string, error) { return p.inHome(".codeium", "windsurf", "mcp_config.json") },
	},
}

// Names are the editors' names on the command line.
func Names() []string {
	names := make([]string, len(Editors))
	for i, e := range Editors {
		names[i] = e.Name
	}
	return names
}

// Lookup finds the editor named name on the command line.
func Lookup(name string) (Editor, bool) {
	for _, e := range Editors {
		if e.Name == name {
			return e, true
		}
	}
	return Editor{}, false
}

// HasUserFile reports whether the editor has both a workspace file and a
// user file, between which --user chooses.
func (e Editor) HasUserFile() bool { return e.Name == "vscode" }

// File is the path of the editor's config file on p's system: the user's
// file, or for VS Code the workspace's in p.Dir unless user is set.
func (e Editor) File(p Place, user bool) (string, error) {
	if p.Getenv == nil {
		p.Getenv = func(string) string { return "" }
	}
	if p.ReadDir == nil {
		p.ReadDir = func(string) []string { return nil }
	}
	return e.file(p, user)
}

// claudeDesktopPackage is the config file of Claude Desktop installed as
// a Windows package (MSIX, its installer's way since 2026): Windows shows
// the packaged app its own copy of %APPDATA%, in the package's LocalCache,
// and the app never sees %APPDATA%\Claude. ok is false where there is no
// such package. Of several packages, the one with a config file is taken.
func claudeDesktopPackage(p Place) (path string, ok bool, err error) {
	local := p.Getenv("LOCALAPPDATA")
	if p.GOOS != "windows" || local == "" || !p.isAbs(local) {
		return "", false, nil
	}
	packages := p.join(local, "Packages")
	var found, withConfig []string
	for _, name := range p.ReadDir(packages) {
		if !strings.HasPrefix(name, "Claude_") {
			continue
		}
		dir := p.join(packages, name, "LocalCache", "Roaming", "Claude")
		found = append(found, dir)
		if slices.Contains(p.ReadDir(dir), "claude_desktop_config.json") {
			withConfig = append(withConfig, dir)
		}
	}
	switch {
	case len(found) == 0:
		return "", false, nil
	case len(found) == 1:
		return p.join(found[0], "claude_desktop_config.json"), true, nil
	case len(withConfig) == 1:
		return p.join(withConfig[0], "claude_desktop_config.json"), true, nil
	}
	return "", true, fmt.Errorf("there are several Claude Desktop packages in %s, and setup cannot tell which one runs: Get-AppxPackage Claude* (in PowerShell) names the installed one; put the entry that toolhost setup --dry-run claude-desktop prints into claude_desktop_config.json in its directory among %s", packages, strings.Join(found, ", "))
}

// appConfigDir is where desktop applications built on Electron keep their
// settings: Application Support on macOS, %APPDATA% on Windows and the XDG
// config directory elsewhere. Claude Desktop and VS Code use it.
func appConfigDir(p Place) (string, error) {
	switch p.GOOS {
	case "darwin":
		home, err := p.home()
		if err != nil {
			return "", err
		}
		return p.join(home, "Library", "Application Support"), nil
	case "windows":
		if dir := p.Getenv("APPDATA"); dir != "" && p.isAbs(dir) {
			return dir, nil
		}
		home, err := p.home()
		if err != nil {
			return "", fmt.Errorf("APPDATA is not set, and %w", err)
		}
		return p.join(home, "AppData", "Roaming"), nil
	default:
		// The XDG base directory rules: a relative XDG_CONFIG_HOME is
		// ignored.
		if dir := p.Getenv("XDG_CONFIG_HOME"); dir != "" && p.isAbs(dir) {
			return dir, nil
		}
		home, err := p.home()
		if err != nil {
			return "", err
		}
		return p.join(home, ".config"), nil
	}
}

func (p Place) home() (string, error) {
	if p.Home == "" {
		v := "HOME"
		if p.GOOS == "windows" {
			v = "USERPROFILE"
		}
		return "", fmt.Errorf("cannot find your home directory: set %s", v)
	}
	return p.Home, nil
}

func (p Place) inHome(elem ...string) (string, error) {
	home, err := p.home()
	if err != nil {
		return "", err
	}
	return p.join(append([]string{home}, elem...)...), nil
}

// join joins path elements with p's separator, so that each system's
// layout can be computed on any other (filepath.Join knows only its own).
// The elements after the first are single names.
func (p Place) join(elem ...string) string {
	if p.GOOS != "windows" {
		return path.Join(elem...)
	}
	return strings.TrimRight(elem[0], `\/`) + `\` + strings.Join(elem[1:], `\`)
}

// isAbs reports whether dir is absolute on p's system.
func (p Place) isAbs(dir string) bool {
	if p.GOOS != "windows" {
		return strings.HasPrefix(dir, "/")
	}
	// C:\dir or C:/dir, and \\server\share.
	return len(dir) >= 3 && dir[1] == ':' && (dir[2] == '\\' || dir[2] == '/') || strings.HasPrefix(dir, `\\`)
}
