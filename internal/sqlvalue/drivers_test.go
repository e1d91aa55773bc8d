package sqlvalue

import (
	"context"
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/google/jsonschema-go/jsonschema"
	_ "github.com/jackc/pgx/v5/stdlib" // the "pgx" driver
	"github.com/toolhost/toolhost/internal/testmysql"
	"github.com/toolhost/toolhost/internal/testpg"
	_ "modernc.org/sqlite" // the "sqlite" driver
)

func TestMain(m *testing.M) {
	os.Exit(testpg.Main(func() int { return testmysql.Main(m.Run) }))
}

// driverCase is one query whose single row a real database gives, and the
// JSON object sqlvalue makes of it.
type driverCase struct {
	name  string
	query string
	args  []any
	want  string
}

// checkRows runs each case on db, read as driver, and compares the row's
// JSON with the case's, and checks that it matches the row's schema.
func checkRows(t *testing.T, driver string, db *sql.DB, cases []driverCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := db.QueryContext(context.Background(), tc.query, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			sc, err := NewScanner(driver, rows)
			if err != nil {
				t.Fatal(err)
			}
			if !rows.Next() {
				t.Fatalf("no row: %v", rows.Err())
			}
			got, err := sc.AppendRow(nil, rows)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("row\n got %s\nwant %s", got, tc.want)
			}
			checkSchema(t, RowSchema(sc.Columns()), got)
		})
	}
}

// checkSchema fails t unless the JSON value row matches schema.
func checkSchema(t *testing.T, schema *jsonschema.Schema, row []byte) {
	t.Helper()
	resolved, err := schema.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(row, &v); err != nil {
		t.Fatalf("%s is not JSON: %v", row, err)
	}
	if err := resolved.Validate(v); err != nil {
		s, _ := json.Marshal(schema)
		t.Errorf("the row %s does not match its schema %s: %v", row, s, err)
	}
}

// TestPostgres checks the conversions of pgx's values from a real
// PostgreSQL server.
func TestPostgres(t *testing.T) {
	db, err := sql.Open("pgx", testpg.Shared(t).Database(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TYPE mood AS ENUM ('sad', 'happy'); SET TIME ZONE 'Asia/Kolkata'`); err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1) // the session's time zone holds for every case
	checkRows(t, Postgres, db, []driverCase{
		{"null", `SELECT NULL::int AS n, NULL::text AS t, NULL::int[] AS a`, nil, `{"n":null,"t":null,"a":null}`},
		{"integers", `SELECT 1::int2 AS s, -2::int4 AS i, 9007199254740991::int8 AS exact, 9007199254740993::int8 AS beyond, $1::int8 AS arg, count(*) AS c FROM (VALUES (1)) v`,
			[]any{int64(-9007199254740993)}, `{"s":1,"i":-2,"exact":9007199254740991,"beyond":"9007199254740993","arg":"-9007199254740993","c":1}`},
		{"numeric", `SELECT 123.4500::numeric(10,4) AS d, 12345678901234567890.5::numeric AS long, 'NaN'::numeric AS nan, 0.1::float4 AS f4, 0.1::float8 AS f8, '-Infinity'::float8 AS inf`, nil,
			`{"d":123.4500,"long":"12345678901234567890.5","nan":"NaN","f4":0.1,"f8":0.1,"inf":"-Infinity"}`},
		{"text and bool", `SELECT true AS b, 'héllo <&>'::text AS t, 'x'::varchar(3) AS v, 'y'::char(3) AS c, 'happy'::mood AS e, 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid AS u`, nil,
			`{"b":true,"t":"héllo <&>","v":"x","c":"y  ","e":"happy","u":"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"}`},
		{"times", `SELECT '2024-01-02 03:04:05.123456+02'::timestamptz AS tz, '2024-01-02 03:04:05'::timestamp AS ts, 'infinity'::timestamptz AS inf, '2024-01-02'::date AS d, '13:14:15.5'::time AS tm, '1 year 2 mons 3 days 04:05:06.5'::interval AS iv, '-1 day -00:00:01'::interval AS neg`, nil,
			`{"tz":"2024-01-02T01:04:05.123456Z","ts":"2024-01-02T03:04:05","inf":"infinity","d":"2024-01-02","tm":"13:14:15.5","iv":"P1Y2M3DT4H5M6.5S","neg":"P-1DT-1S"}`},
		{"bytes and json", `SELECT '\xdeadbeef'::bytea AS b, '{"a": [1, 2.50]}'::json AS j, '{"b": null, "a": 1}'::jsonb AS jb`, nil,
			`{"b":"3q2+7w==","j":{"a": [1, 2.50]},"jb":{"a": 1, "b": null}}`},
		{"arrays", `SELECT ARRAY[1,NULL,3]::int[] AS i, ARRAY['a b','c"d',NULL,'NULL'] AS t, ARRAY[[1,2],[3,4]] AS m, ARRAY[true,false] AS b, ARRAY['2024-01-02 03:04:05+00']::timestamptz[] AS ts, ARRAY['\x01ff'::bytea] AS by, ARRAY['{"x": 1}'::jsonb] AS j, ARRAY[1.50]::numeric[] AS n, ARRAY[]::int[] AS e`, nil,
			`{"i":[1,null,3],"t":["a b","c\"d",null,"NULL"],"m":[[1,2],[3,4]],"b":[true,false],"ts":["2024-01-02T03:04:05Z"],"by":["Af8="],"j":[{"x": 1}],"n":[1.50],"e":[]}`},
		{"duplicate names", `SELECT 1 AS id, 2 AS id`, nil, `{"id":1,"id_2":2}`},
	})
}

// TestMySQL checks the conversions of go-sql-driver's values from a real
// MariaDB server, through both of its protocols: text (a query without
// arguments) and binary (a prepared statement).
func TestMySQL(t *testing.T) {
	cfg, err := mysql.ParseDSN(testmysql.Shared(t).Database(t))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Params = map[string]string{"time_zone": "'+05:00'"} // MySQLConfig replaces it
	MySQLConfig(cfg)
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, stmt := range []string{
		`CREATE TABLE v (n int, ti tinyint, b bool, bi bigint, ubi bigint unsigned, d decimal(30,4), f float, dbl double, bt bit(3),
			c char(3), vc varchar(10), bl blob, vb varbinary(4), dt datetime(6), ts timestamp(3) NULL, da date, tm time, yr year,
			en enum('sad','happy'), st set('a','b','c'), js json)`,
		`INSERT INTO v VALUES (NULL, -5, true, 9007199254740993, 18446744073709551615, 123.4500, 0.1, 0.1, b'101',
			'ab', 'héllo', x'deadbeef', x'01', '2024-01-02 03:04:05.123456', '2024-01-02 03:04:05.5', '2024-01-02', '-838:59:59', 2024,
			'happy', 'a,c', '{"a": [1, 2]}')`,
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	const want = `{"n":null,"ti":-5,"b":1,"bi":"9007199254740993","ubi":"18446744073709551615","d":123.4500,"f":0.1,"dbl":0.1,"bt":5,` +
		`"c":"ab","vc":"héllo","bl":"3q2+7w==","vb":"AQ==","dt":"2024-01-02T03:04:05.123456","ts":"2024-01-02T03:04:05.5Z","da":"2024-01-02","tm":"-838:59:59","yr":2024,` +
		`"en":"happy","st":["a","c"],"js":"{\"a\": [1, 2]}"}`
	checkRows(t, MySQL, db, []driverCase{
		{"text protocol", `SELECT * FROM v`, nil, want},
		{"binary protocol", `SELECT * FROM v WHERE ti = ?`, []any{-5}, want},
		{"timestamp is UTC", `SELECT FROM_UNIXTIME(0) AS epoch, @@session.time_zone AS zone`, nil, `{"epoch":"1970-01-01T00:00:00","zone":"+00:00"}`},
	})
}

// TestSQLite checks the conversions of modernc.org/sqlite's values, of
// declared types and of values of another type than their column's.
func TestSQLite(t *testing.T) {
	db, err := sql.Open("sqlite", filepath.Join(t.TempDir(), "v.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(strings.Join([]string{
		`CREATE TABLE v (n int, i integer, bi bigint, r real, d decimal(10,2), b boolean, t text, bl blob, dt datetime, da date, js json)`,
		`INSERT INTO v VALUES (NULL, 1, 9007199254740993, 0.1, 12.50, 1, 'héllo', x'deadbeef', '2024-01-02 03:04:05', '2024-01-02', '{"a":1}')`,
	}, ";")); err != nil {
		t.Fatal(err)
	}
	checkRows(t, SQLite, db, []driverCase{
		{"declared types", `SELECT * FROM v`, nil,
			`{"n":null,"i":1,"bi":"9007199254740993","r":0.1,"d":12.5,"b":true,"t":"héllo","bl":"3q2+7w==","dt":"2024-01-02T03:04:05Z","da":"2024-01-02","js":{"a":1}}`},
		{"expressions", `SELECT 1+1 AS sum, 'x' AS s, x'00' AS bytes, 0.5 AS half, json('[1]') AS j, NULL AS absent, ? AS arg`, []any{int64(1) << 60},
			`{"sum":2,"s":"x","bytes":"AA==","half":0.5,"j":"[1]","absent":null,"arg":"1152921504606846976"}`},
	})
}
