# Unknown attributes in the http and exec backend blocks.
tool "http_attr" {
  http {
    url     = "https://example.com"
    methd   = "GET" # ERROR: Unsupported argument # DETAIL: Did you mean "method"?
  }
}

tool "exec_attr" {
  exec {
    command = ["echo", "hi"]
    cwd     = "." # ERROR: Unsupported argument
  }
}

tool "http_and_exec" {
  http {
    url = "https://example.com"
  }
  exec { # ERROR: More than one backend block
    command = ["echo", "hi"]
  }
}

tool "http_undeclared" {
  param "city" {
    type = string
  }
  http {
    url = "https://example.com/${param.cty}" # ERROR: Undeclared parameter # DETAIL: Did you mean "city"?
  }
}

# A tool's own argument or block written inside its backend block is told
# where it goes; what the misplaced block holds is not checked as the
# backend's (type = string is no unknown variable there).
tool "misplaced" {
  template {
    description = "Greets" # ERROR: Unsupported argument # DETAIL: The description argument belongs in the tool block, beside the template block
    param "name" { # ERROR: Unsupported block type # DETAIL: move it out of template { ... }
      type = string
    }
    text = "hello"
  }
}
