package sql

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toolhost/toolhost/host"
)

// reloadConfig is a config whose source's file is dsn, with a quick tool
// and a slow one.
func reloadConfig(dsn string) string {
	return `
source "shop" {
  driver = "sqlite"
  dsn    = "` + dsn + `"
  # the slow tool's count takes seconds under the race detector
  statement_timeout = "5m"
}
tool "count" {
  sql {
    source = "shop"
    query  = "SELECT count(*) AS n FROM items"
  }
}
tool "slow" {
  sql {
    source = "shop"
    query  = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 300000) SELECT count(*) AS n FROM c"
  }
}
`
}

// backendOf is the sql backend of a registry's tool.
func backendOf(t *testing.T, reg *host.Registry, name string) *Backend {
	t.Helper()
	tool, ok := reg.Tool(name)
	if !ok {
		t.Fatalf("no tool %s", name)
	}
	return tool.Backend.(*Backend)
}

// TestReloadPools loads a config, loads it again as a reload does (the
// new one before the old one is closed), and checks that an unchanged
// source keeps its pool and its connections, and that a changed dsn gets
// a new pool while a call running on the old one finishes there.
func TestReloadPools(t *testing.T) {
	dir := newShop(t)
	script, err := os.ReadFile(shopScript)
	if err != nil {
		t.Fatal(err)
	}
	execScript(t, filepath.Join(dir, "other.db"), string(script)+"DELETE FROM orders; DELETE FROM items WHERE id > 2;")
	before := openPools()
	reg1, diags := loadDiags(t, dir, reloadConfig("shop.db"))
	if diags != "" {
		t.Fatal(diags)
	}
	structured(t, callTool(t, reg1, "count", `{}`))
	db1 := backendOf(t, reg1, "count").pool.db

	reg2, diags := loadDiags(t, dir, reloadConfig("shop.db"))
	if diags != "" {
		t.Fatal(diags)
	}
	_ = reg1.Close()
	if got := backendOf(t, reg2, "count").pool; got.db != db1 || openPools() != before+1 {
		t.Fatalf("an unchanged source got a new pool (%d pools)", openPools()-before)
	}
	if db1.Stats().OpenConnections == 0 {
		t.Error("the kept pool lost its connections")
	}
	structured(t, callTool(t, reg2, "count", `{}`))

	// A call runs on reg2's pool while the dsn changes.
	done := callAsync(reg2, "slow")
	var slow string
wait:
	for {
		select {
		case slow = <-done:
			break wait
		default:
		}
		if db1.Stats().InUse > 0 {
			break
		}
		time.Sleep(time.Millisecond) // polls for the call to start, asserts nothing
	}
	reg3, diags := loadDiags(t, dir, reloadConfig("other.db"))
	if diags != "" {
		t.Fatal(diags)
	}
	defer reg3.Close()
	if backendOf(t, reg3, "count").pool == backendOf(t, reg2, "count").pool {
		t.Fatal("a changed dsn kept the old pool")
	}
	_ = reg2.Close() // waits for the slow call, which finishes on the old pool
	if slow == "" {
		slow = <-done
	}
	if !strings.Contains(slow, `"n":300000`) {
		t.Errorf("the call running during the reload answered %q", slow)
	}
	m := structured(t, callTool(t, reg3, "count", `{}`))
	if n := m["rows"].([]any)[0].(map[string]any)["n"]; n != float64(2) {
		t.Errorf("count on the new dsn = %v, want 2", n)
	}
	if got := openPools(); got != before+1 {
		t.Errorf("%d pools open, want 1", got-before)
	}
}
