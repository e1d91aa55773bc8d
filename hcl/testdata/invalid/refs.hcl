# References to parameters and arguments that are not declared.
tool "template_ref" {
  param "name" {
    type = string
  }
  template {
    text = "hello ${param.nme}" # ERROR: Undeclared parameter # DETAIL: Did you mean "name"?
  }
}

tool "result_ref" {
  param "name" {
    type = string
  }
  template {
    text = "{}"
  }
  result {
    field "greeting" {
      path = "data.${param.nmae}" # ERROR: Undeclared parameter # DETAIL: Did you mean "name"?
    }
  }
}

tool "root_ref" {
  param "name" {
    type = string
  }
  template {
    text = "hello ${params.name}" # ERROR: Unknown variable # DETAIL: Did you mean "param"?
  }
}

tool "other_root" {
  template {
    text = "hello ${var.name}" # ERROR: Unknown variable # DETAIL: Only param.NAME is available
  }
}

tool "root_left_out" {
  param "city" {
    type = string
  }
  http {
    url = "https://api.example.com/weather/${city}" # ERROR: Unknown variable # DETAIL: To use the parameter "city", write param.city.
  }
}

tool "env_as_a_shell_writes_it" {
  http {
    url     = "https://api.example.com/weather"
    headers = { Authorization = "Bearer ${API_TOKEN}" } # ERROR: Unknown variable # DETAIL: To read the environment variable API_TOKEN, write env("API_TOKEN").
  }
}

tool "env_as_an_object" {
  http {
    url     = "https://api.example.com/weather"
    headers = { X-Api-Key = env.API_KEY } # ERROR: Unknown variable # DETAIL: To read the environment variable API_KEY, write env("API_KEY").
  }
}

tool "whole_param" {
  param "name" {
    type = string
  }
  template {
    text = jsonencode(param) # ERROR: Incomplete reference to param
  }
}

tool "no_params" {
  template {
    text = "${param.city}" # ERROR: Undeclared parameter # DETAIL: Add a param "city" block
  }
}

tool "constant_description" {
  description = "for ${param.name}" # ERROR: Argument must be constant
  param "name" {
    type = string
  }
  template {
    text = "x"
  }
}

prompt "prompt_ref" {
  arg "topic" {
  }
  message "user" {
    text = "Tell me about ${arg.topc}" # ERROR: Undeclared argument # DETAIL: Did you mean "topic"?
  }
}

# A word written without quotes where text is read at call time.
tool "unquoted_word" {
  template {
    text = Hello # ERROR: Unknown variable # DETAIL: If Hello is meant as text, put it in quotes: "Hello".
  }
}
