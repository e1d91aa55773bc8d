package sqlvalue

import (
	"time"

	"github.com/go-sql-driver/mysql"
)

// MySQLConfig sets what the conversions of MySQL's values need in cfg, a
// source's parsed DSN: the session's time zone is UTC, so that TIMESTAMP
// values, which MySQL stores as instants and writes in the session's
// zone, are read as UTC (a time_zone the DSN set is replaced), and a
// parseTime DSN's DATETIME values are read in UTC as the wall-clock times
// they are.
func MySQLConfig(cfg *mysql.Config) {
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["time_zone"] = "'+00:00'"
	cfg.Loc = time.UTC
}
