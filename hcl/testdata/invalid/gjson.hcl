# gjson paths that match nothing whatever the JSON.
tool "paths" {
  param "limit" {
    type    = integer
    default = 5
  }
  template {
    text = "{}"
  }
  result {
    field "trailing_dot" {
      path = "data.items." # ERROR: Invalid gjson path # DETAIL: ends with '.'
    }
    field "open_query" {
      path = "data.#(index<=${param.limit}.title" # ERROR: Invalid gjson path # DETAIL: (with 0 for each value interpolated), has a '(' at position 7 that is never closed
    }
    field "open_string" {
      path = "data.#(title==\"x).hot" # ERROR: Invalid gjson path # DETAIL: never closed
    }
    field "open_multipath" {
      path = "data.0.{title,hot" # ERROR: Invalid gjson path # DETAIL: '{' at position 8 that is never closed with '}'
    }
    field "empty_query" {
      path = "data.#()#" # ERROR: Invalid gjson path # DETAIL: empty query
    }
    field "modifier" {
      path = "data.@revers" # ERROR: Invalid gjson path # DETAIL: did you mean @reverse? If @revers is a key of the JSON
    }
    field "empty_part" {
      path = "data..title" # ERROR: Invalid gjson path # DETAIL: two separators in a row
    }
    field "fine" {
      path = "data.#(index<=${param.limit})#.{title,hot,\"rank\":index}|@reverse"
    }
    field "fine_conditional" {
      path = param.limit > 3 ? "a.b" : "a.c"
    }
  }
}
