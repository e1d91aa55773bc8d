# Tools whose parameters exercise argument validation (args_test.go).
tool "weather" {
  param "city" {
    type       = string
    min_length = 1
    max_length = 3
  }
  param "unit" {
    type    = string
    enum    = ["celsius", "fahrenheit"]
    default = "celsius"
  }
  param "days" {
    type    = integer
    minimum = 1
    maximum = 7
    default = 3
  }
  param "ratio" {
    type     = number
    minimum  = 0
    maximum  = 1
    required = false
  }
  param "code" {
    type     = string
    pattern  = "^[A-Z]{3}$"
    required = false
  }
  param "verbose" {
    type     = bool
    required = false
  }
  template {
    text = "${param.city} ${param.unit} ${param.days}"
  }
}

tool "batch" {
  param "items" {
    type = list(object({
      title = string
      tags  = optional(list(string))
      meta  = optional(object({ rank = integer }))
    }))
  }
  param "labels" {
    type     = map(string)
    required = false
  }
  param "point" {
    type     = tuple([number, string])
    required = false
  }
  param "ids" {
    type     = set(integer)
    required = false
  }
  param "tags" {
    type      = list(string)
    required  = false
    min_items = 1
    max_items = 2
  }
  param "filter" {
    type     = object({ field = string, value = optional(string) })
    default  = { field = "title" }
  }
  template {
    text = "x"
  }
}

tool "nothing" {
  template {
    text = "x"
  }
}

tool "anything" {
  param "v" {
    type     = any
    required = false
  }
  template {
    text = "x"
  }
}
