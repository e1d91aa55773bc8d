# env() of a variable that is not set, with no default. Where the value is
# fixed when the config loads, that is an error; where it is read when the
# tool is called, a warning (the call fails with an isError result).
server {
  name = env("TOOLHOST_TEST_SURELY_UNSET_7F3A9C") # ERROR: Environment variable not set # DETAIL: Set TOOLHOST_TEST_SURELY_UNSET_7F3A9C in the environment toolhost runs in, or give env() a default
}

tool "env_in_template" {
  template {
    text = "key ${env("TOOLHOST_TEST_SURELY_UNSET_7F3A9C")}" # WARNING: Environment variable not set # DETAIL: calls of tool "env_in_template" fail until it is
  }
}

tool "env_in_url" {
  http {
    url     = "${env("TOOLHOST_TEST_SURELY_UNSET_URL")}/v1/items" # WARNING: Environment variable not set # DETAIL: env("TOOLHOST_TEST_SURELY_UNSET_URL", "value")
    headers = { Authorization = "Bearer ${env("TOOLHOST_TEST_SURELY_UNSET_KEY", null)}" } # WARNING: Environment variable not set
  }
}

tool "env_in_result_path" {
  template {
    text = "{}"
  }
  result {
    field "x" {
      path = env("TOOLHOST_TEST_SURELY_UNSET_PATH") # WARNING: Environment variable not set
    }
  }
}

tool "env_fixed_at_load" {
  http {
    url     = "https://example.com"
    timeout = env("TOOLHOST_TEST_SURELY_UNSET_TIMEOUT") # ERROR: Argument must be constant # DETAIL: It calls env("TOOLHOST_TEST_SURELY_UNSET_TIMEOUT") with no default, and that variable is not set.
  }
}

tool "env_with_default" {
  description = env("TOOLHOST_TEST_SURELY_UNSET_7F3A9C", "fine")
  template {
    text = "x ${env("TOOLHOST_TEST_SURELY_UNSET_7F3A9C", "fine")}"
  }
}

tool "env_bad_arity" {
  description = env("A", "b", "c") # ERROR: Invalid function argument
  template {
    text = "x"
  }
}
