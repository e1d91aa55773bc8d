# Names declared twice, blocks that are missing or repeated.
tool "twice" {
  template {
    text = "first"
  }
}

tool "twice" { # ERROR: Duplicate tool # DETAIL: structure.hcl:2:1. Names must be unique across all config files
  template {
    text = "second"
  }
}

tool "dup_param" {
  param "x" {
    type = string
  }
  param "x" { # ERROR: Duplicate param # DETAIL: structure.hcl:15:3. The parameter names of a tool must be unique
    type = number
  }
  template {
    text = "${param.x}"
  }
}

tool "two_backends" {
  template {
    text = "a"
  }
  template { # ERROR: More than one backend block
    text = "b"
  }
}

tool "no_backend" { # ERROR: Missing backend block # DETAIL: template
  description = "nothing to run"
}

tool "has space" { # ERROR: Invalid tool name # DETAIL: "has_space"
  template {
    text = "x"
  }
}

tool "empty_result" {
  template {
    text = "{}"
  }
  result { # ERROR: Empty result block
  }
}

tool "two_results" {
  template {
    text = "{}"
  }
  result {
    field "a" {
      path = "a"
    }
  }
  result { # ERROR: Duplicate result block # DETAIL: A tool has at most one result block
    field "b" {
      path = "b"
    }
  }
}

tool "dup_field" {
  template {
    text = "{}"
  }
  result {
    field "a" {
      path = "a"
    }
    field "a" { # ERROR: Duplicate field # DETAIL: The field names of a result block must be unique
      path = "b"
    }
  }
}

tool "field_without_path" {
  template {
    text = "{}"
  }
  result {
    field "a" { # ERROR: Missing required argument
    }
    field "b" {
      path = "b"
    }
  }
}

tool "two_annotations" {
  annotations {
    read_only_hint = true
  }
  annotations { # ERROR: Duplicate annotations block # DETAIL: structure.hcl:97:3. A tool has at most one annotations block
    read_only_hint = false
  }
  template {
    text = "x"
  }
}

tool "bad_param_name" {
  param "1st" { # ERROR: Invalid parameter name
  }
  template {
    text = "x"
  }
}

tool "template_without_text" {
  template { # ERROR: Missing required argument
  }
}

server {
  name = "one"
}

server { # ERROR: Duplicate server block # DETAIL: A config has one server block, across all its files
  name = "two"
}

# A block without its name, or with a label too many: what to write.
tool { # ERROR: Missing name for tool # DETAIL: A tool block needs its name in quotes after the word tool, as in: tool "NAME" { ... }.
  template {
    text = "x"
  }
}

tool "labelled" "twice" { # ERROR: Extraneous label for tool # DETAIL: A tool block takes only its name, as in: tool "NAME" { ... }; remove the other labels.
  template {
    text = "x"
  }
}

tool "empty_field_name" {
  template {
    text = "{}"
  }
  result {
    field "" { # ERROR: Empty field name # DETAIL: Name the field
      path = "a"
    }
    field " " { # ERROR: Empty field name
      path = "b"
    }
  }
}
