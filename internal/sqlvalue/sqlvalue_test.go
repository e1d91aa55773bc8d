package sqlvalue

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"
)

// TestToJSON checks the conversions of the values each driver gives, one
// Go type and column type at a time, without a database.
func TestToJSON(t *testing.T) {
	at := time.Date(2024, 1, 2, 3, 4, 5, 500000000, time.FixedZone("", 2*3600))
	for _, tc := range []struct {
		name, driver, typ string
		v                 any
		want              string
	}{
		{"null", Postgres, "INT4", nil, `null`},
		{"int", Postgres, "INT4", int64(-7), `-7`},
		{"bigint exact", Postgres, "INT8", int64(1<<53 - 1), `9007199254740991`},
		{"bigint beyond 2^53", Postgres, "INT8", int64(1<<53 + 1), `"9007199254740993"`},
		{"bigint below -2^53", Postgres, "INT8", int64(-(1<<53 + 1)), `"-9007199254740993"`},
		{"unsigned bigint", MySQL, "UNSIGNED BIGINT", uint64(math.MaxUint64), `"18446744073709551615"`},
		{"unsigned bigint as text", MySQL, "UNSIGNED BIGINT", []byte("18446744073709551615"), `"18446744073709551615"`},
		{"unsigned bigint small text", MySQL, "UNSIGNED BIGINT", []byte("5"), `5`},
		{"numeric", Postgres, "NUMERIC", "123.4500", `123.4500`},
		{"numeric 15 digits", Postgres, "NUMERIC", "-1234567890.12345", `-1234567890.12345`},
		{"numeric 16 digits", Postgres, "NUMERIC", "1234567890.123456", `"1234567890.123456"`},
		{"numeric large round", Postgres, "NUMERIC", "1000000000000000000000000000000", `1000000000000000000000000000000`},
		{"numeric small", Postgres, "NUMERIC", "0.000000000000000000001", `0.000000000000000000001`},
		{"numeric past a double", Postgres, "NUMERIC", "1" + strings.Repeat("0", 400), `"1` + strings.Repeat("0", 400) + `"`},
		{"numeric below a double", Postgres, "NUMERIC", "0." + strings.Repeat("0", 400) + "1", `"0.` + strings.Repeat("0", 400) + `1"`},
		{"numeric NaN", Postgres, "NUMERIC", "NaN", `"NaN"`},
		{"numeric infinity", Postgres, "NUMERIC", "-Infinity", `"-Infinity"`},
		{"decimal bytes", MySQL, "DECIMAL", []byte("-0.50"), `-0.50`},
		{"float8", Postgres, "FLOAT8", 0.1, `0.1`},
		{"float8 large", Postgres, "FLOAT8", 1e21, `1e+21`},
		{"float8 tiny", Postgres, "FLOAT8", 1e-9, `1e-9`},
		{"float4 from pgx", Postgres, "FLOAT4", float64(float32(0.1)), `0.1`},
		{"float from mysql", MySQL, "FLOAT", float32(0.1), `0.1`},
		{"float NaN", Postgres, "FLOAT8", math.NaN(), `"NaN"`},
		{"float infinity", Postgres, "FLOAT8", math.Inf(1), `"Infinity"`},
		{"bool", Postgres, "BOOL", true, `true`},
		{"mysql bool is tinyint", MySQL, "TINYINT", int64(1), `1`},
		{"sqlite boolean", SQLite, "BOOLEAN", int64(0), `false`},
		{"sqlite boolean other", SQLite, "BOOLEAN", int64(2), `2`},
		{"text", Postgres, "TEXT", "héllo \"<b>\"", `"héllo \"<b>\""`},
		{"text bytes", MySQL, "VARCHAR", []byte("héllo"), `"héllo"`},
		{"text bad utf-8", MySQL, "TEXT", []byte("a\xffb"), "\"a\uFFFDb\""},
		{"bytea", Postgres, "BYTEA", []byte{0xde, 0xad, 0xbe, 0xef}, `"3q2+7w=="`},
		{"blob", MySQL, "BLOB", []byte{0}, `"AA=="`},
		{"sqlite blob in untyped", SQLite, "", []byte{1, 2}, `"AQI="`},
		{"json", Postgres, "JSONB", []byte(`{"b": null}`), `{"b": null}`},
		{"json invalid", SQLite, "JSON", "notjson", `"notjson"`},
		{"timestamptz", Postgres, "TIMESTAMPTZ", at, `"2024-01-02T01:04:05.5Z"`},
		{"timestamp", Postgres, "TIMESTAMP", time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), `"2024-01-02T03:04:05"`},
		{"timestamp infinity", Postgres, "TIMESTAMP", "infinity", `"infinity"`},
		{"date", Postgres, "DATE", time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC), `"2024-01-02"`},
		{"mysql datetime", MySQL, "DATETIME", []byte("2024-01-02 03:04:05.123456"), `"2024-01-02T03:04:05.123456"`},
		{"mysql timestamp", MySQL, "TIMESTAMP", []byte("2024-01-02 03:04:05.500"), `"2024-01-02T03:04:05.5Z"`},
		{"mysql zero timestamp", MySQL, "TIMESTAMP", []byte("0000-00-00 00:00:00"), `"0000-00-00 00:00:00"`},
		{"mysql parseTime datetime", MySQL, "DATETIME", time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), `"2024-01-02T03:04:05"`},
		{"mysql time", MySQL, "TIME", []byte("-838:59:59"), `"-838:59:59"`},
		{"interval", Postgres, "INTERVAL", "1 year 2 mons 3 days 04:05:06.5", `"P1Y2M3DT4H5M6.5S"`},
		{"interval negative", Postgres, "INTERVAL", "-1 days -00:00:01.25", `"P-1DT-1.25S"`},
		{"interval zero", Postgres, "INTERVAL", "00:00:00", `"PT0S"`},
		{"interval other style", Postgres, "INTERVAL", "@ 1 day", `"@ 1 day"`},
		{"uuid", Postgres, "UUID", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", `"a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"`},
		{"int array", Postgres, "_INT4", "{1,NULL,3}", `[1,null,3]`},
		{"text array", Postgres, "_TEXT", `{"a b","c\"d",NULL,"NULL"}`, `["a b","c\"d",null,"NULL"]`},
		{"2-d array", Postgres, "_INT8", "{{1,2},{3,9007199254740993}}", `[[1,2],[3,"9007199254740993"]]`},
		{"empty array", Postgres, "_INT4", "{}", `[]`},
		{"array bounds", Postgres, "_INT4", "[0:1]={5,6}", `[5,6]`},
		{"bool array", Postgres, "_BOOL", "{t,f}", `[true,false]`},
		{"timestamptz array", Postgres, "_TIMESTAMPTZ", `{"2024-01-02 03:04:05+05:30"}`, `["2024-01-01T21:34:05Z"]`},
		{"bytea array", Postgres, "_BYTEA", `{"\\x01ff"}`, `["Af8="]`},
		{"jsonb array", Postgres, "_JSONB", `{"{\"x\": 1}"}`, `[{"x": 1}]`},
		{"numeric array", Postgres, "_NUMERIC", `{1.50,NaN}`, `[1.50,"NaN"]`},
		{"broken array", Postgres, "_INT4", "{1,2", `"{1,2"`},
		{"enum", Postgres, "16386", "happy", `"happy"`},
		{"mysql enum", MySQL, "ENUM", []byte("happy"), `"happy"`},
		{"mysql set", MySQL, "SET", []byte("a,c"), `["a","c"]`},
		{"mysql empty set", MySQL, "SET", []byte(""), `[]`},
		{"mysql bit", MySQL, "BIT", []byte{0x05}, `5`},
		{"mysql bit 64", MySQL, "BIT", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, `"18446744073709551615"`},
		{"sqlite text in integer column", SQLite, "INTEGER", "notint", `"notint"`},
		{"sqlite datetime", SQLite, "DATETIME", time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), `"2024-01-02T03:04:05Z"`},
		{"sqlite untyped int", SQLite, "", int64(1 << 60), `"1152921504606846976"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := ToJSON(tc.driver, tc.typ, tc.v)
			if string(got) != tc.want {
				t.Errorf("ToJSON(%s, %s, %#v) = %s, want %s", tc.driver, tc.typ, tc.v, got, tc.want)
			}
			if !json.Valid(got) {
				t.Errorf("ToJSON(%s, %s, %#v) = %s, which is not JSON", tc.driver, tc.typ, tc.v, got)
			}
		})
	}
}

// TestNames checks that repeated column names are made unique.
func TestNames(t *testing.T) {
	for _, tc := range []struct {
		in, want []string
	}{
		{[]string{"a", "b"}, []string{"a", "b"}},
		{[]string{"id", "id", "id"}, []string{"id", "id_2", "id_3"}},
		{[]string{"id", "id_2", "id"}, []string{"id", "id_2", "id_3"}},
	} {
		got := Names(tc.in)
		if string(mustJSON(t, got)) != string(mustJSON(t, tc.want)) {
			t.Errorf("Names(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// mustJSON is json.Marshal(v), failing t on an error.
func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
