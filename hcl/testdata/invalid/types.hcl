# Type expressions that are not types.
tool "types" {
  param "a" {
    type = strng # ERROR: Invalid type # DETAIL: Did you mean "string"?
  }
  param "b" {
    type = lst(string) # ERROR: Invalid type # DETAIL: Did you mean list(...)?
  }
  param "c" {
    type = "string" # ERROR: Invalid type
  }
  param "d" {
    type = optional(string) # ERROR: Invalid type # DETAIL: only allowed for an attribute of an object type
  }
  param "e" {
    type = list(string, number) # ERROR: Invalid type # DETAIL: exactly one argument
  }
  param "f" {
    type = object({ a = string, a = number }) # ERROR: Duplicate attribute
  }
  param "g" {
    type = map(integr) # ERROR: Invalid type # DETAIL: Did you mean "integer"?
  }
  param "h" {
    type = object(string) # ERROR: Invalid type # DETAIL: map of attribute types
  }
  template {
    text = "x"
  }
}

tool "result_types" {
  template {
    text = "{}"
  }
  result {
    field "f" {
      path = "a"
      type = nmber # ERROR: Invalid type # DETAIL: Did you mean "number"?
    }
  }
}
