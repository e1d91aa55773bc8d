# Values read with env() never appear in diagnostics (the test sets
# TOOLHOST_TEST_SECRET; readExpectations checks no detail contains it).
tool "secret_default" {
  param "n" {
    type    = number
    default = env("TOOLHOST_TEST_SECRET") # ERROR: Invalid default # DETAIL: The default "(redacted)"
  }
  template {
    text = "x"
  }
}

tool "secret_timeout" {
  http {
    url     = "http://127.0.0.1:1/"
    timeout = sensitive(env("TOOLHOST_TEST_SECRET")) # ERROR: Invalid timeout # DETAIL: "(redacted)" is not a duration
  }
}

# One mistake in a tool does not hide the others: the misspelt attribute,
# the method, the URL and the timeout are all reported.
tool "several" {
  descripton = "typo" # ERROR: Unsupported argument # DETAIL: Did you mean "description"?
  http {
    method  = "GTE" # ERROR: Invalid HTTP method # DETAIL: Did you mean "GET"?
    url     = "htp://example.com/" # ERROR: Invalid url
    timeout = "10 sec" # ERROR: Invalid timeout
  }
}

tool "huge_bounds" {
  param "n" {
    type    = number
    minimum = 1e400 # ERROR: Invalid minimum # DETAIL: beyond what a 64-bit number holds
  }
  param "m" {
    type    = number
    default = 1e-400 # ERROR: Invalid default # DETAIL: The default 1e-400
  }
  template {
    text = "x"
  }
}
