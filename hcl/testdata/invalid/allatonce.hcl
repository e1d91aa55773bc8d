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
