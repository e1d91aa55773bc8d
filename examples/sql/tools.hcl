# A shop's catalogue in a SQLite file, read with parameterized statements.
# Build the file once from the script beside this config:
#   sqlite3 shop.db < shop.sql
# (the tests build it the same way, with the driver toolhost links in).

source "shop" {
  driver = "sqlite"
  dsn    = "shop.db" # relative to this file; opened read-only
}

tool "list_items" {
  description = "Lists the shop's items in a category, cheapest first."
  param "category" {
    type        = string
    description = "kitchen or office"
  }
  sql {
    source = "shop"
    query  = "SELECT id, name, price, stock FROM items WHERE category = ? AND active ORDER BY price, id"
    args   = [param.category]
  }
}

tool "search_items" {
  description = "Finds items whose name contains the given text (case-insensitive)."
  param "text" {
    type = string
  }
  # The text is a bind argument: % and _ in it are escaped, so they match
  # themselves, and nothing in it can change the statement.
  sql {
    source   = "shop"
    query    = "SELECT id, name, category FROM items WHERE name LIKE '%' || replace(replace(replace(?, '\\', '\\\\'), '%', '\\%'), '_', '\\_') || '%' ESCAPE '\\' ORDER BY id"
    args     = [param.text]
    max_rows = 20
  }
}

tool "get_item" {
  description = "One item by its id."
  param "id" {
    type = number
  }
  sql {
    source     = "shop"
    query      = "SELECT id, name, category, price, stock, tags, added FROM items WHERE id = ?"
    args       = [param.id]
    single_row = true
  }
  result {
    field "name" {
      path = "name"
      type = string
    }
    field "price" {
      path = "price"
      type = number
    }
    field "in_stock" {
      path = "stock"
      type = number
    }
  }
}

tool "sales_by_category" {
  description = "Units ordered and revenue per category."
  sql {
    source = "shop"
    query  = <<-SQL
      SELECT i.category, SUM(o.qty) AS units, ROUND(SUM(o.qty * i.price), 2) AS revenue
      FROM orders o JOIN items i ON i.id = o.item_id
      GROUP BY i.category ORDER BY revenue DESC
    SQL
  }
}
