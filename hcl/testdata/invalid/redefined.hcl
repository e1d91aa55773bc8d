# An argument set twice is HCL's "Attribute redefined", a parse error. The
# parser keeps the first, and the file is decoded all the same: its other
# problems show at once, not after the duplicate is fixed.
tool "twice" {
  description = "first"
  description = "second" # ERROR: Duplicate argument # DETAIL: The argument "description" is already declared at testdata/invalid/redefined.hcl:5:3.
  param "n" {
    type = integer
    type = number # ERROR: Duplicate argument # DETAIL: Each argument may be set only once; remove one of them.
  }
  template {
    text = "n is ${param.m}" # ERROR: Undeclared parameter # DETAIL: Did you mean "n"?
  }
}

tool "other" {
  descripton = "x" # ERROR: Unsupported argument # DETAIL: Did you mean "description"?
  template {
    text = "hi"
  }
}
