# input_schema: a JSON Schema written by hand in place of param blocks.
tool "not_an_object" {
  input_schema = { type = "string" } # ERROR: Invalid input_schema # DETAIL: object schema
  template {
    text = "x"
  }
}

tool "remote_ref" {
  input_schema = {
    type       = "object"
    properties = { a = { "$ref" = "https://example.com/schema.json" } } # ERROR: Invalid input_schema # DETAIL: remote schemas are not fetched
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

# A schema that cannot be compiled is an error at the keyword at fault.
tool "bad_keyword_value" {
  input_schema = {
    type = "object"
    properties = {
      a = { type = "string", minLength = "x" } # ERROR: Invalid input_schema # DETAIL: At /properties/a/minLength: minLength is a count: a whole number, 0 or more, not "x".
    }
  }
  template {
    text = "x"
  }
}

tool "misspelt_type" {
  input_schema = {
    type = "object"
    "$defs" = {
      b = { type = "strng" } # ERROR: Unknown type in input_schema # DETAIL: Did you mean "string"?
    }
  }
  template {
    text = "x"
  }
}

tool "ref_to_nothing" {
  input_schema = {
    type       = "object"
    properties = { a = { "$ref" = "#/$defs/missing" } } # ERROR: Invalid input_schema # DETAIL: JSON Pointer "/$defs/missing": no key "missing"
  }
  template {
    text = "x"
  }
}

tool "anchor_nowhere" {
  input_schema = {
    type       = "object"
    properties = { a = { "$ref" = "#nowhere" } } # ERROR: Invalid input_schema # DETAIL: no anchor "nowhere"
  }
  template {
    text = "x"
  }
}

tool "file_ref" {
  input_schema = {
    type       = "object"
    properties = { a = { "$ref" = "file:///etc/hostname" } } # ERROR: Invalid input_schema # DETAIL: files are not read
  }
  template {
    text = "x"
  }
}

tool "lookahead" {
  input_schema = {
    type = "object"
    properties = {
      a = {
        type    = "string"
        pattern = "^(?=a)" # ERROR: Invalid input_schema # DETAIL: is not a regular expression Go's regexp package (RE2) takes
      }
    }
  }
  template {
    text = "x"
  }
}

tool "default_outside" {
  input_schema = {
    type = "object"
    properties = {
      n = { type = "integer", maximum = 3, default = 5 } # ERROR: Invalid input_schema # DETAIL: The default at /properties/n/default, 5, does not fit its own schema: 5 is greater than the maximum 3 (maximum).
    }
  }
  template {
    text = "x"
  }
}

tool "alternatives_at_top" {
  input_schema = { # WARNING: Schema some clients reject # DETAIL: allOf at its top level
    type  = "object"
    allOf = [{ required = ["a"] }]
  }
  template {
    text = "x"
  }
}
