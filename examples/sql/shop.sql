-- The shop example's database: examples/sql/tools.hcl reads it, and the
-- tests build shop.db from this script (no database file is kept in the
-- repository).
CREATE TABLE items (
  id       INTEGER PRIMARY KEY,
  name     TEXT NOT NULL,
  category TEXT NOT NULL,
  price    NUMERIC NOT NULL,
  stock    INTEGER NOT NULL,
  tags     JSON,
  thumb    BLOB,
  added    DATETIME,
  active   BOOLEAN NOT NULL DEFAULT 1
);
INSERT INTO items (id, name, category, price, stock, tags, thumb, added, active) VALUES
  (1, 'Blue mug', 'kitchen', 8.5, 12, '["mug","blue"]', X'89504E47', '2025-03-01 10:00:00', 1),
  (2, 'Red mug', 'kitchen', 8.5, 0, '["mug","red"]', NULL, '2025-03-02 11:30:00', 1),
  (3, 'Tea towel', 'kitchen', 4.25, 40, '[]', NULL, NULL, 1),
  (4, 'Desk lamp', 'office', 29.99, 5, '{"watts":9}', NULL, '2025-04-10 09:15:00', 0),
  (5, 'Notebook 100% recycled', 'office', 3, 200, NULL, NULL, NULL, 1),
  (6, 'O''Brien''s pen', 'office', 1.2, 75, NULL, NULL, NULL, 1);
CREATE TABLE orders (
  id      INTEGER PRIMARY KEY,
  item_id INTEGER NOT NULL REFERENCES items(id),
  qty     INTEGER NOT NULL
);
INSERT INTO orders (item_id, qty) VALUES (1, 2), (1, 1), (3, 4), (4, 1), (5, 10);
