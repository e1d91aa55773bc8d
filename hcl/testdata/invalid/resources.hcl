# Resources and resource templates. Paths are relative to this directory.
resource "missing_file" {
  uri  = "file:///missing.md"
  file = "no-such-file.md" # ERROR: Missing file
}

resource "dir_not_file" {
  uri  = "file:///dir"
  file = "." # ERROR: Not a file
}

resource "no_scheme" {
  uri  = "reports/q4.md" # ERROR: Invalid resource URI # DETAIL: not an absolute URI
  file = "resources.hcl"
}

resource "same_uri" {
  uri  = "file:///resources.hcl"
  file = "resources.hcl"
}

resource "same_uri_again" {
  uri  = "file:///resources.hcl" # ERROR: Duplicate resource URI # DETAIL: Each resource has its own URI
  file = "resources.hcl"
}

resource "missing_uri" { # ERROR: Missing required argument
  file = "resources.hcl"
}

resource_template "no_variable" {
  uri_template = "notes:///index.md" # ERROR: Invalid URI template # DETAIL: exactly one variable
  dir          = "."
}

resource_template "two_variables" {
  uri_template = "notes:///{dir}/{name}" # ERROR: Invalid URI template
  dir          = "."
}

resource_template "no_scheme_template" {
  uri_template = "/notes/{path}" # ERROR: Invalid URI template # DETAIL: no scheme
  dir          = "."
}

resource_template "missing_dir" {
  uri_template = "docs:///{path}"
  dir          = "no-such-dir" # ERROR: Missing directory
}

resource_template "same_uri" { # ERROR: Duplicate resource # DETAIL: resources.hcl:17:1. Names must be unique across all config files
  uri_template = "other:///{path}"
  dir          = "."
}

resource_template "empty_variable" {
  uri_template = "notes:///{}" # ERROR: Invalid URI template
  dir          = "."
}

resource "two_backends" {
  uri = "data:///two"
  exec {
    command = ["date"]
  }
  http { # ERROR: More than one backend block # DETAIL: this one has an exec block and an http block.
    url = "https://example.com"
  }
}

resource "file_and_backend" {
  uri  = "data:///both"
  file = "resources.hcl"
  http { # ERROR: Two sources # DETAIL: has both file and an http block.
    url = "https://example.com"
  }
}

resource_template "enum_variable" {
  uri_template = "notes2:///{path}"
  dir          = "."
  enum         = ["a.md"] # ERROR: Unsupported argument # DETAIL: list suggestions in completions = [...]
}

resource_template "query_operator" {
  uri_template = "search://x{?q}" # ERROR: Invalid URI template # DETAIL: operator "?", which toolhost does not serve
  dir          = "."
}

resource_template "fragment_operator" {
  uri_template = "frag:///{#section}" # ERROR: Invalid URI template # DETAIL: operator "#"
  dir          = "."
}

resource_template "explode_modifier" {
  uri_template = "explode:///{path*}" # ERROR: Invalid URI template # DETAIL: modifier "*", which toolhost does not serve
  dir          = "."
}

resource_template "prefix_modifier" {
  uri_template = "prefix:///{path:3}" # ERROR: Invalid URI template # DETAIL: modifier ":3"
  dir          = "."
}

resource_template "variable_list" {
  uri_template = "list:///{a,b}" # ERROR: Invalid URI template # DETAIL: exactly one variable
  dir          = "."
}
