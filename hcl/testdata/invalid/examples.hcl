# The shape of example blocks; running them is validate's job (see
# host.CheckExamples), so a missing recorded file is not an error here.
tool "examples" {
  param "limit" {
    type    = integer
    default = 3
  }
  http {
    url = "https://example.com/items"
  }
  result {
    field "n" {
      path = "count"
      type = integer
    }
  }
  example "fine" {
    description = "a recorded response in a file that is not needed to load"
    args        = { limit = 1 }
    response    = file("testdata/not-read-at-load.json")
    result      = { n = 1 }
  }
  example "fine" { # ERROR: Duplicate example # DETAIL: The example names of a tool must be unique
    response = "{\"count\": 1}"
    result   = { n = 1 }
  }
  example "typo" {
    respone = "{}" # ERROR: Unsupported argument # DETAIL: Did you mean "response"?
    result  = { n = 1 }
  }
  example "refers_to_param" {
    args   = { limit = param.limit } # ERROR: Argument must be constant
    result = { n = 1 }
  }
  example "both" {
    response = "{}"
    result   = { n = 1 }
    error    = "matched nothing" # ERROR: Conflicting expectations
  }
  example "neither" { # ERROR: Missing expectation
    response = "{}"
  }
  example { # ERROR: Missing name for example # DETAIL: An example block needs its name in quotes after the word example, as in: example "NAME" { ... }.
    result = { n = 1 }
  }
}
