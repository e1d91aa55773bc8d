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
  description = "for ${param.name}" # ERROR: Value must be constant
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
