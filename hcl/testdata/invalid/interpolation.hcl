# Values with no string form, interpolated into a string. HCL skips the
# conversion while a value is unknown, so these are found from the types.
tool "list_in_template" {
  param "tags" {
    type = list(string)
  }
  template {
    text = "tags: ${param.tags}" # ERROR: Invalid template interpolation value # DETAIL: param.tags is a list of string, which cannot be written into a string. Join it, as in join(",", param.tags)
  }
}

tool "whole_list_is_fine" {
  param "tags" {
    type = list(string)
  }
  template {
    text = "tags: ${join(", ", param.tags)} ${jsonencode(param.tags)} %{for t in param.tags}${t} %{endfor}"
  }
}

tool "map_in_url" {
  param "labels" {
    type = map(string) # WARNING: Schema some clients reject
  }
  http {
    url = "https://example.com/items/${param.labels}" # ERROR: Invalid template interpolation value # DETAIL: param.labels is a map of string
  }
}

tool "object_in_header_and_query" {
  param "filter" {
    type = object({ field = string })
  }
  param "ids" {
    type = set(number)
  }
  http {
    url     = "https://example.com/items"
    headers = { X-Filter = "f=${param.filter}" } # ERROR: Invalid template interpolation value # DETAIL: jsonencode(param.filter)
    query   = { ids = "${param.ids}", all = "all:${param.ids}" } # ERROR: Invalid template interpolation value # DETAIL: param.ids is a set of number
  }
}

tool "tuple_in_exec" {
  param "point" {
    type = tuple([number, number]) # WARNING: Schema some clients reject
  }
  exec {
    command = ["echo", "at ${param.point}"] # ERROR: Invalid template interpolation value # DETAIL: a tuple
  }
}

tool "list_in_path" {
  param "keys" {
    type = list(string)
  }
  template {
    text = "{}"
  }
  result {
    field "x" {
      path = "data.${param.keys}" # ERROR: Invalid template interpolation value
    }
  }
}
