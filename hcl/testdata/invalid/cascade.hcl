# One mistake is reported once: a parameter whose declaration is wrong is
# still declared, so a path that uses it is not reported as well.
tool "cascade" {
  param "limit" {
    type = integr # ERROR: Invalid type # DETAIL: Did you mean "integer"?
  }
  template {
    text = "{}"
  }
  result {
    field "topics" {
      path = "data.#(index<=${param.limit})#"
    }
  }
}

# A result block whose only field has a mistake is not also reported as
# empty: it declares a field.
tool "field_without_path" {
  template {
    text = "{}"
  }
  result {
    field "a" { # ERROR: Missing required argument
      type = string
    }
  }
}

tool "field_with_typo" {
  template {
    text = "{}"
  }
  result {
    field "a" {
      path = "a"
      typ  = string # ERROR: Unsupported argument
    }
  }
}

# A template that refers to a param whose block has an error is not
# reported as undeclared.
tool "template_cascade" {
  param "city" {
    type = strin # ERROR: Invalid type
  }
  template {
    text = "weather in ${param.city}"
  }
}

# A prompt whose only message has a mistake is not also reported as having
# no messages: it has one.
prompt "bad_role_only" {
  message "usr" { # ERROR: Invalid message role # DETAIL: Did you mean "user"?
    text = "hi"
  }
}

prompt "message_typo_only" {
  message "user" {
    txt = "hi" # ERROR: Unsupported argument # DETAIL: Did you mean "text"?
  }
}

# A backend written as an argument, or a backend's argument written in the
# tool block, is reported once: not also as a missing backend.
tool "backend_as_argument" {
  template = "hi" # ERROR: Unsupported argument # DETAIL: template is a block, not an argument: write it without "=", as template { ... }.
}

tool "command_in_tool" {
  command = ["ls", "-l"] # ERROR: Unsupported argument # DETAIL: command is an argument of the exec block: move it into the tool's exec { ... } block.
}

tool "url_in_tool" {
  url = "https://example.com" # ERROR: Unsupported argument # DETAIL: move it into the tool's http { ... } block.
}

# A misspelt param or arg block is reported, not also every use of its
# name; a name no block declares still is.
tool "misspelt_param" {
  paramter "name" { # ERROR: Unsupported block type # DETAIL: Did you mean "param"?
    type = string
  }
  parm "city" { # ERROR: Unsupported block type # DETAIL: Did you mean "param"?
  }
  template {
    text = "hi ${param.name} in ${param.city}"
  }
  example "other" {
    args   = { name = "x" }
    result = "hi x"
  }
}

tool "misspelt_param_other" {
  paramter "name" { # ERROR: Unsupported block type # DETAIL: Did you mean "param"?
  }
  template {
    text = "hi ${param.other}" # ERROR: Undeclared parameter
  }
}

prompt "misspelt_arg" {
  argument "topic" { # ERROR: Unsupported block type # DETAIL: Did you mean "arg"?
  }
  message "user" {
    text = "about ${arg.topic} ${upper(arg.topic)}"
  }
  message "assistant" {
    text = "and ${arg.other}" # ERROR: Undeclared argument
  }
}
