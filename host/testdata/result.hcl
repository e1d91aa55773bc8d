# Tools whose result blocks exercise MapResult (result_test.go). The
# template backends are placeholders: the tests feed MapResult bodies
# directly.

# The vvhan.com Baidu hot list, as in examples/tools.hcl.
tool "hotlist" {
  param "limit" {
    type    = integer
    default = 10
    minimum = 1
    maximum = 50
  }
  template {
    text = "{}"
  }
  result {
    field "updated_at" {
      path = "update_time"
      type = string
    }
    field "topics" {
      path = "data.#(index<=${param.limit})#.{title,hot,url,index}"
      type = list(object({ title = string, hot = string, url = string, index = number }))
    }
  }
}

# The wttr.in weather shape, as in examples/tools.hcl.
tool "weather" {
  param "unit" {
    type    = string
    enum    = ["celsius", "fahrenheit"]
    default = "celsius"
  }
  template {
    text = "{}"
  }
  result {
    field "city" {
      path     = "nearest_area.0.areaName.0.value"
      type     = string
      optional = true
    }
    field "temperature" {
      path = "current_condition.0.${param.unit == "celsius" ? "temp_C" : "temp_F"}"
      type = number
    }
    field "humidity" {
      path = "current_condition.0.humidity"
      type = integer
    }
  }
}

# One field of each kind, each at its own top-level key.
tool "fields" {
  template {
    text = "{}"
  }
  result {
    field "name" {
      path = "name"
      type = string
    }
    field "count" {
      path     = "count"
      type     = integer
      optional = true
    }
    field "score" {
      path     = "score"
      type     = number
      optional = true
    }
    field "ok" {
      path     = "ok"
      type     = bool
      optional = true
    }
    field "item" {
      path     = "item"
      type     = object({ title = string, url = optional(string) })
      optional = true
    }
    field "ids" {
      path     = "ids"
      type     = list(integer)
      optional = true
    }
    field "counts" {
      path     = "counts"
      type     = map(number)
      optional = true
    }
    field "raw" {
      path     = "raw"
      optional = true
    }
  }
}

# Arguments interpolated into result paths: their text is taken literally,
# as a key or as a query's quoted value, never as path syntax.
tool "lookup" {
  param "user" { type = string }
  param "limit" {
    type    = integer
    default = 9
  }
  template { text = "{}" }
  result {
    field "email" {
      path = "users.${param.user}.email"
      type = string
    }
  }
}
tool "query" {
  param "name" { type = string }
  template { text = "{}" }
  result {
    field "email" {
      path = "list.#(name==\"${param.name}\").email"
      type = string
    }
  }
}
tool "limited" {
  param "limit" { type = integer }
  template { text = "{}" }
  result {
    field "titles" {
      path = "list.#(n<=${param.limit})#.name"
      type = list(string)
    }
  }
}
tool "chosen" {
  param "nested" { type = bool }
  template { text = "{}" }
  result {
    field "email" {
      path = "users.${param.nested ? "a\\.b" : "bob"}.email"
      type = string
    }
  }
}
