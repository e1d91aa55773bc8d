# A mistake in a param does not hide the backend's own mistakes, and two
# backend blocks do not hide their references.
tool "bad_param_and_backend" {
  param "city" {
    type = strng # ERROR: Invalid type # DETAIL: Did you mean "string"?
  }
  http {
    url     = "https://example.com/${param.city}"
    method  = "FETCH" # ERROR: Invalid HTTP method
    timeout = "10 parsecs" # ERROR: Invalid timeout
  }
}

tool "bad_param_and_command" {
  param "x" {
    type = strng # ERROR: Invalid type
  }
  exec {
    command = "echo hi" # ERROR: Invalid command
  }
}

tool "two_backends" {
  template {
    text = "${param.p}" # ERROR: Undeclared parameter
  }
  exec { # ERROR: More than one backend block
    command = ["ls"]
  }
}

# A param whose default breaks its own pattern still types the backend's
# expressions: the object put into a query shows in the same run.
tool "bad_default_and_query" {
  param "s" {
    pattern = "^[a-z]+$"
    default = "ABC" # ERROR: Invalid default # DETAIL: does not match the pattern
  }
  param "o" {
    type = object({ a = string })
  }
  http {
    url   = "https://example.com/${param.s}"
    query = { q = "${param.o}" } # ERROR: Invalid query parameter value # DETAIL: not object
  }
}

# So does one with a bound that is not a number.
tool "bad_bound_and_query" {
  param "n" {
    type    = number
    minimum = "low" # ERROR: Wrong type for minimum # DETAIL: minimum must be a number, and this is a string.
  }
  param "o" {
    type = object({ a = string })
  }
  http {
    url   = "https://example.com/${param.n}"
    query = { q = "${param.o}" } # ERROR: Invalid query parameter value
  }
}

# A param with an unknown attribute (a misspelt type, perhaps) is not
# typed: what its type would forbid is not reported as well.
tool "typo_in_type" {
  param "o" {
    tpye = object({ a = string }) # ERROR: Unsupported argument # DETAIL: Did you mean "type"?
  }
  http {
    url   = "https://example.com"
    query = { q = "${param.o}" }
  }
}

# With two backend blocks, the first is compiled all the same: its own
# mistakes show with the "More than one" error.
tool "two_backends_first_compiled" {
  http {
    url     = "https://example.com"
    timeout = 30 # ERROR: Invalid timeout
  }
  template { # ERROR: More than one backend block # DETAIL: has an http block and a template block
    text = "x"
  }
}
