# Warnings: the config loads and serves, but something will fail or be
# refused later.
tool "program_missing" {
  exec {
    command = ["toolhost-no-such-program-7f3a9c", "x"] # WARNING: Program not found # DETAIL: is not on the PATH
  }
}

tool "program_path_missing" {
  exec {
    command = ["bin/no-such-script.sh"] # WARNING: Program not found # DETAIL: A program path is relative to the config file's directory
  }
}

tool "program_not_executable" {
  exec {
    command = ["./bin/not-executable.sh"] # WARNING: Program not found # DETAIL: is not an executable file
  }
}

tool "workdir_missing" {
  exec {
    command = ["pwd"]
    dir     = "no-such-workdir" # WARNING: Working directory not found # DETAIL: does not exist, so calls of tool "workdir_missing" fail until that is fixed
  }
}

tool "workdir_a_file" {
  exec {
    command = ["pwd"]
    dir     = "warnings.hcl" # WARNING: Working directory not found # DETAIL: is not a directory
  }
}

tool "program_on_path" {
  exec {
    command = ["sh", "-c", "echo hi"]
  }
}

tool "program_with_own_path" {
  exec {
    command = ["sh", "-c", "echo hi"] # WARNING: Program not found
    env     = { PATH = "/toolhost/nowhere" }
  }
}

tool "schemas" {
  param "labels" {
    type = map(string) # WARNING: Schema some clients reject # DETAIL: Param "labels" is of type map(string)
  }
  param "pair" {
    type = tuple([string, number])
  }
  param "code" {
    type    = string
    pattern = "(?i)^[a-z]+$"
  }
  template {
    text = "x"
  }
}

tool "pattern_only" {
  param "code" {
    type    = string
    pattern = "\\A[a-z]+\\z" # WARNING: Schema some clients reject # DETAIL: uses \A (write ^)
  }
  template {
    text = "x"
  }
}

tool "portable_pattern" {
  param "code" {
    type    = string
    pattern = "^(?<word>[a-z]+)\\p{L}*[0-9]$"
  }
  template {
    text = "x"
  }
}

tool "search.v2" { # WARNING: Tool name some clients reject # DETAIL: Rename it, for example to "search_v2".
  template {
    text = "x"
  }
}

tool "a_very_long_tool_name_that_mcp_allows_but_the_model_apis_do_not_accept_at_all" { # WARNING: Tool name some clients reject # DETAIL: at most 64 of them
  template {
    text = "x"
  }
}
