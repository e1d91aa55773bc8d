# A block that is never closed is a parse error.
tool "unclosed" { # ERROR: Unclosed configuration block
  template {
    text = "x"
  }
