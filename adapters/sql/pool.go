package sql

import (
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"fmt"
	"sync"
	"time"

	"github.com/toolhost/toolhost/adapters"
)

// pools are shared by every tool that names the same source with the same
// settings, across reloads: a pool is keyed by the source's name, driver,
// settings and a hash of its dsn (the dsn itself is kept nowhere but in
// the source), counts the backends that hold it, and is closed when the
// last lets go. A reload compiles the new config's backends (taking the
// pools they name) before the old config's are closed (letting theirs
// go): a pool whose source did not change is kept, open connections and
// all; one whose dsn changed is a new pool, and the old one closes once
// the calls still running on it are done (sql.DB.Close waits for them).
//
// Connections are health-checked as they are taken from a pool: pgx pings
// one that has been idle for more than a second, go-sql-driver/mysql
// checks that one is still alive, and database/sql drops a connection a
// driver calls bad and dials another; a database that was down is dialled
// again by the next call.
var pools = struct {
	sync.Mutex
	m map[string]*pool
}{m: map[string]*pool{}}

// idleConnTime and connLifetime bound how long a pool keeps a connection:
// one a server dropped while idle is not kept for long, and one that has
// served long enough is replaced.
const (
	idleConnTime = 5 * time.Minute
	connLifetime = 30 * time.Minute
)

// pool is one shared pool, opened at its first use.
type pool struct {
	key      string
	src      *adapters.Source
	readOnly bool
	d        dialect
	refs     int // guarded by pools
	once     sync.Once
	db       *sql.DB
	err      error
}

// poolKey is the key of a source's pool: its dsn appears only hashed.
func poolKey(src *adapters.Source, readOnly bool) string {
	sum := sha256.Sum256([]byte(src.DSN))
	return fmt.Sprintf("%s\x00%s\x00%s\x00%d\x00%d\x00%t", src.Name, src.Driver, hex.EncodeToString(sum[:]), src.MaxOpenConns, src.StatementTimeout, readOnly)
}

// acquirePool takes a reference to the source's pool, made when no
// backend holds it; it does no I/O.
func acquirePool(src *adapters.Source, d dialect, readOnly bool) *pool {
	key := poolKey(src, readOnly)
	pools.Lock()
	defer pools.Unlock()
	p := pools.m[key]
	if p == nil {
		p = &pool{key: key, src: src, readOnly: readOnly, d: d}
		pools.m[key] = p
	}
	p.refs++
	return p
}

// release lets go of a reference; the last closes the pool, after the
// calls running on it.
func (p *pool) release() {
	pools.Lock()
	p.refs--
	last := p.refs == 0
	if last {
		delete(pools.m, p.key)
	}
	pools.Unlock()
	if last {
		p.once.Do(func() { p.err = errPoolClosed })
		if p.db != nil {
			_ = p.db.Close()
		}
	}
}

// errPoolClosed is the error of a pool used after its last release.
var errPoolClosed = fmt.Errorf("the database connection pool is closed")

// get opens the pool at its first use. The error of an open (a dsn the
// driver cannot parse) is the pool's for good: the config must change.
func (p *pool) get() (*sql.DB, error) {
	p.once.Do(func() {
		p.db, p.err = p.d.open(p.src, p.readOnly)
		if p.err != nil {
			return
		}
		p.db.SetMaxOpenConns(p.src.MaxOpenConns)
		p.db.SetMaxIdleConns(p.src.MaxOpenConns)
		p.db.SetConnMaxIdleTime(idleConnTime)
		p.db.SetConnMaxLifetime(connLifetime)
	})
	return p.db, p.err
}

// openPools counts the pools held, for tests.
func openPools() int {
	pools.Lock()
	defer pools.Unlock()
	return len(pools.m)
}
