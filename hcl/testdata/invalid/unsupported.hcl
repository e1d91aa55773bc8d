# Unknown attributes and block types, each in a block of its own kind.
server {
  name    = "x"
  verison = "1.0" # ERROR: Unsupported argument # DETAIL: Did you mean "version"?
}

tool "tool_attr" {
  descripton = "typo" # ERROR: Unsupported argument # DETAIL: Did you mean "description"?
  template {
    text = "x"
  }
}

tool "param_attr" {
  param "x" {
    typ = string # ERROR: Unsupported argument # DETAIL: Did you mean "type"?
  }
  template {
    text = "x"
  }
}

tool "template_attr" {
  template {
    text  = "x"
    mime  = "text/plain" # ERROR: Unsupported argument
  }
}

tool "annotations_attr" {
  annotations {
    read_only = true # ERROR: Unsupported argument
  }
  template {
    text = "x"
  }
}

tool "field_attr" {
  template {
    text = "{}"
  }
  result {
    field "f" {
      path     = "a"
      optinal  = true # ERROR: Unsupported argument # DETAIL: Did you mean "optional"?
    }
    field "g" {
      path = "b"
    }
  }
}

tool "block_type" {
  templat { # ERROR: Unsupported block type # DETAIL: Did you mean "template"?
    text = "x"
  }
}

tool "param_block" {
  parameter "x" { # ERROR: Unsupported block type
  }
  template {
    text = "x"
  }
}

tools "root_block" { # ERROR: Unsupported block type # DETAIL: Did you mean "tool"?
}

resource "r" {
  uri      = "file:///r"
  file     = "unsupported.hcl"
  mimetype = "text/plain" # ERROR: Unsupported argument
}

prompt "p" {
  descripton = "typo" # ERROR: Unsupported argument
  arg "a" {
    requird = false # ERROR: Unsupported argument
  }
  message "user" {
    text = "hi ${arg.a}"
  }
}
