# Prompt blocks.
prompt "bad_role" {
  message "usr" { # ERROR: Invalid message role # DETAIL: Did you mean "user"?
    text = "hi"
  }
  message "user" {
    text = "hi"
  }
}

prompt "undeclared_arg" {
  arg "city" {
    required = false
  }
  message "user" {
    text = "Weather in ${coalesce(arg.cty, "Paris")}" # ERROR: Undeclared argument # DETAIL: Did you mean "city"? Declared: city. Add an arg "cty" block, or correct the name.
  }
}

prompt "no_messages" { # ERROR: Prompt without messages
  description = "nothing to say"
}

prompt "dup_arg" {
  arg "a" {
  }
  arg "a" { # ERROR: Duplicate arg # DETAIL: The argument names of a prompt must be unique
  }
  message "assistant" {
    text = "${arg.a}"
  }
}

prompt "twice" {
  message "user" {
    text = "one"
  }
}

prompt "twice" { # ERROR: Duplicate prompt # DETAIL: Names must be unique across all config files
  message "user" {
    text = "two"
  }
}

prompt "text_not_string" {
  message "user" {
    text = ["a", "b"] # ERROR: Message text is not a string
  }
}
