# Every primitive type, with the constraints that apply to each.
tool "primitives" {
  title       = "Primitive parameters"
  description = "One parameter of each primitive type."

  param "name" {
    type        = string
    title       = "Name"
    description = "Who to greet."
    min_length  = 1
    max_length  = 20
    pattern     = "^[A-Za-z ]+$"
  }
  param "mode" {
    type    = string
    enum    = ["short", "long"]
    default = "short"
  }
  param "ratio" {
    type    = number
    minimum = -1.5
    maximum = 1.5
    default = 0.25
  }
  param "count" {
    type        = integer
    description = "How many times."
    minimum     = 1
    maximum     = 10
    default     = 3
  }
  param "level" {
    type = integer
    enum = [1, 2, 3]
  }
  param "loud" {
    type    = bool
    default = false
  }
  param "anything" {
    type     = any
    required = false
  }
  param "untyped" {
    description = "A param without a type is a string."
    required    = false
  }

  template {
    text = "${param.name} ${param.mode} ${param.count}"
  }
}

# A tool with no parameters at all.
tool "no_params" {
  description = "Takes nothing."
  template {
    text = "ok"
  }
}
