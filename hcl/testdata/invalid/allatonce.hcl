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
    query = { q = "${param.o}" } # ERROR: Invalid query parameter value # DETAIL: not an object
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

# A misspelt parameter does not hide the backend's other mistakes.
tool "undeclared_and_backend" {
  param "city" {}
  http {
    url     = "https://example.com/${param.cty}" # ERROR: Undeclared parameter # DETAIL: Did you mean "city"?
    method  = "FETCH" # ERROR: Invalid HTTP method
    timeout = "10 parsecs" # ERROR: Invalid timeout
  }
}

tool "undeclared_and_exec" {
  exec {
    command = ["echo", param.zz, foo.bar] # ERROR: Undeclared parameter # ERROR: Unknown variable
    env     = { A = param.e } # ERROR: Undeclared parameter
    timeout = "5" # ERROR: Invalid timeout
  }
}

# Nor does it in a resource's or a resource template's backend, and the
# fix says where their names come from.
resource "undeclared_in_resource" {
  uri = "status://now"
  http {
    url    = "https://example.com/${param.x}" # ERROR: Undeclared parameter # DETAIL: A resource has no parameters
    method = "GETT" # ERROR: Invalid HTTP method
  }
}

resource_template "undeclared_in_template" {
  uri_template = "man:///{page}"
  exec {
    command = ["man", "--", param.pag] # ERROR: Undeclared parameter # DETAIL: The only parameter of a resource template is the variable of its uri_template, {page}: write param.page
    timeout = "5" # ERROR: Invalid timeout
  }
}

# A mistake in uri_template does not hide the missing directory, nor the
# backend's mistakes.
resource_template "bad_uri_and_dir" {
  uri_template = "notes:///fixed" # ERROR: Invalid URI template
  dir          = "no-such-dir" # ERROR: Missing directory
}

resource_template "bad_uri_and_backend" {
  uri_template = "man:///{page" # ERROR: Invalid URI template
  exec {
    command = ["man", "--", param.page]
    timeout = "5" # ERROR: Invalid timeout
  }
}
