# env() of a variable that is not set, with no default.
server {
  name = env("TOOLHOST_TEST_SURELY_UNSET_7F3A9C") # ERROR: Invalid function argument # DETAIL: TOOLHOST_TEST_SURELY_UNSET_7F3A9C is not set
}

tool "env_in_template" {
  template {
    text = "key ${env("TOOLHOST_TEST_SURELY_UNSET_7F3A9C")}" # ERROR: Invalid function argument # DETAIL: give a default
  }
}

tool "env_with_default" {
  description = env("TOOLHOST_TEST_SURELY_UNSET_7F3A9C", "fine")
  template {
    text = "x"
  }
}

tool "env_bad_arity" {
  description = env("A", "b", "c") # ERROR: Invalid function argument
  template {
    text = "x"
  }
}
