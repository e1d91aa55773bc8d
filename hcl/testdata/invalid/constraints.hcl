# Constraints that contradict each other or the type.
tool "constraints" {
  param "enum_default" {
    type    = string
    enum    = ["simple", "detailed"]
    default = "fancy" # ERROR: Invalid default # DETAIL: is not one of the allowed values
  }
  param "above_max" {
    type    = integer
    maximum = 50
    default = 51 # ERROR: Invalid default # DETAIL: is greater than the maximum 50
  }
  param "below_min" {
    type    = number
    minimum = 0
    default = -1 # ERROR: Invalid default # DETAIL: is less than the minimum 0
  }
  param "wrong_type" {
    type    = integer
    default = "ten" # ERROR: Invalid default # DETAIL: is not of type integer
  }
  param "not_whole" {
    type    = integer
    default = 1.5 # ERROR: Invalid default # DETAIL: is not a whole number
  }
  param "bounds" {
    type    = number
    minimum = 10 # ERROR: minimum is greater than maximum
    maximum = 1
  }
  param "lengths" {
    type       = string
    min_length = 5 # ERROR: min_length is greater than max_length
    max_length = 2
  }
  param "regex" {
    type    = string
    pattern = "^[a-z+$" # ERROR: Invalid pattern # DETAIL: missing closing ]
  }
  param "length_on_number" {
    type       = number
    min_length = 1 # ERROR: Constraint does not fit the type # DETAIL: min_length applies to string parameters
  }
  param "bounds_on_string" {
    type    = string
    maximum = 3 # ERROR: Constraint does not fit the type
  }
  param "items_on_string" {
    type      = string
    max_items = 3 # ERROR: Constraint does not fit the type
  }
  param "required_default" {
    type     = string
    default  = "x"
    required = true # ERROR: Required parameter with a default
  }
  param "negative_length" {
    type       = string
    max_length = -1 # ERROR: Invalid max_length
  }
  param "empty_enum" {
    type = string
    enum = [] # ERROR: Invalid enum
  }
  param "enum_wrong_type" {
    type = integer
    enum = [1, "two"] # ERROR: Invalid enum value
  }
  param "short_default" {
    type       = string
    min_length = 3
    default    = "北京" # ERROR: Invalid default # DETAIL: is shorter than min_length 3
  }
  param "pattern_default" {
    type    = string
    pattern = "^[0-9]+$"
    default = "abc" # ERROR: Invalid default # DETAIL: does not match the pattern
  }
  param "null_default" {
    type    = string
    default = null # ERROR: Missing value for default
  }
  param "number_attr" {
    type    = number
    minimum = "low" # ERROR: Wrong type for minimum
  }
  # An error in one attribute does not hide those of the others.
  param "two_errors" {
    type    = number
    minimum = "one" # ERROR: Wrong type for minimum
    default = "ten" # ERROR: Invalid default # DETAIL: is not of type number
  }
  # A bound of the wrong type on a string is one error, not two.
  param "string_bound" {
    type    = string
    minimum = "x" # ERROR: Wrong type for minimum
  }
  param "bool_attr" {
    type      = string
    sensitive = "yes" # ERROR: Wrong type for sensitive
  }
  template {
    text = "x"
  }
}
