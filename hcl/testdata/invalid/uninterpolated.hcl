# References written as other template languages write them: HCL takes
# only ${...}, and sends the rest of a string as it is written.
tool "braces" {
  param "name" {
    type = string
  }
  template {
    text = "hello {param.name}" # WARNING: Reference without ${...} # DETAIL: Write ${param.name}
  }
}

tool "double_braces" {
  param "city" {
    type = string
  }
  template {
    text = "from {{ param.city }}" # WARNING: Reference without ${...} # DETAIL: The text {{ param.city }} is sent as it is written
  }
}

tool "dollar" {
  param "name" {
    type = string
  }
  template {
    text = "and $param.name" # WARNING: Reference without ${...} # DETAIL: The text $param.name is sent
  }
}

tool "fine" {
  param "name" {
    type = string
  }
  template {
    text = "${param.name}, $${param.name}, {param.undeclared}, {param.name, {name}"
  }
}

tool "shell" {
  param "q" {
    type = string
  }
  exec {
    command = ["sh", "-c", "grep $(param.q) file", "x"] # WARNING: Reference without ${...} # DETAIL: Write ${param.q}
  }
}

tool "url" {
  param "id" {
    type = integer
  }
  http {
    url = "https://api.example.com/items/{param.id}" # WARNING: Reference without ${...}
  }
}
