# A PostgreSQL database named by DATABASE_URL, such as
#   DATABASE_URL=postgres://reader:secret@localhost:5432/shop
# The URL is read when the config loads and never logged nor shown.

source "pg" {
  driver            = "postgres"
  dsn               = env("DATABASE_URL")
  max_open_conns    = 10
  statement_timeout = "5s"
}

tool "find_customers" {
  description = "Customers whose e-mail address starts with the given text."
  param "prefix" {
    type = string
  }
  sql {
    source   = "pg"
    query    = "SELECT id, name, email, created_at FROM customers WHERE email LIKE $1 || '%' ORDER BY id"
    args     = [param.prefix]
    max_rows = 50
  }
}
