# Names other languages use for toolhost's blocks and arguments get the one
# to write.
tool "names" {
  desc = "Say hi" # ERROR: Unsupported argument # DETAIL: Did you mean "description"?
  param "a" {
    optional = true # ERROR: Unsupported argument # DETAIL: A parameter is made optional with required = false
    values   = ["x", "y"] # ERROR: Unsupported argument # DETAIL: Did you mean "enum"?
    regex    = "^x" # ERROR: Unsupported argument # DETAIL: Did you mean "pattern"?
  }
  template {
    text = "hi ${param.a}"
  }
}

prompt "names" {
  param "topic" { # ERROR: Unsupported block type # DETAIL: Did you mean "arg"?
  }
  arg "n" {
    desc = "how many" # ERROR: Unsupported argument # DETAIL: Did you mean "description"?
  }
  message "user" {
    text = "about ${arg.n}"
  }
}
