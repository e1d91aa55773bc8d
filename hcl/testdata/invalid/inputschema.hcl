# input_schema: a JSON Schema written by hand in place of param blocks.
tool "not_an_object" {
  input_schema = { type = "string" } # ERROR: Invalid input_schema # DETAIL: object schema
  template {
    text = "x"
  }
}

tool "remote_ref" {
  input_schema = { # ERROR: Invalid input_schema # DETAIL: remote schemas are not fetched
    type       = "object"
    properties = { a = { "$ref" = "https://example.com/schema.json" } }
  }
  template {
    text = "x"
  }
}

tool "both" {
  param "a" {
    type = string
  }
  input_schema = { type = "object" } # ERROR: input_schema and param blocks
  template {
    text = "x"
  }
}

tool "not_json" {
  input_schema = "{ nope" # ERROR: Invalid input_schema # DETAIL: must be a JSON object
  template {
    text = "x"
  }
}

tool "undeclared_property" {
  input_schema = { type = "object", properties = { name = { type = "string" } } }
  template {
    text = "hi ${param.nmae}" # ERROR: Undeclared parameter # DETAIL: Did you mean "name"?
  }
}
