# input_schema written in each way the configuration can write it: clients
# get every keyword, in the order written (inputschema_test.go).
tool "object" {
  input_schema = {
    type     = "object"
    required = ["zeta"]
    properties = {
      zeta  = { type = "string", description = "<b>bold</b> & more", "x-order" = 1 }
      alpha = { type = ["number", "null"], default = null, maximum = 1.5, examples = [1, 0.25] }
    }
    "$comment"           = "kept"
    additionalProperties = false
  }
  template {
    text = "x"
  }
}

tool "parens" {
  input_schema = ({ type = "object", properties = { b = { const = true }, a = {} } })
  template {
    text = "x"
  }
}

tool "jsonencode" {
  input_schema = jsonencode({ type = "object", "$defs" = { z = { type = "string" }, a = { type = "integer" } } })
  template {
    text = "x"
  }
}

tool "heredoc" {
  input_schema = <<-JSON
    {
      "type": "object",
      "properties": { "s": { "pattern": "^\\d+\u0026$", "type": "string" } },
      "if": { "required": ["s"] }, "then": { "minProperties": 1 }
    }
  JSON
  template {
    text = "x"
  }
}
