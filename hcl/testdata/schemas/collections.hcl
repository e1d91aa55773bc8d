# Collection and structural types, with optional(...) object attributes.
tool "collections" {
  description = "Collections of every kind."

  param "tags" {
    type      = list(string)
    min_items = 1
    max_items = 5
  }
  param "ids" {
    type     = set(integer)
    required = false
  }
  param "labels" {
    type    = map(string) # WARNING: Schema some clients reject
    default = { env = "dev" }
  }
  param "point" {
    type = tuple([number, number])
  }
  param "filter" {
    type = object({
      field = string
      value = optional(string)
      limit = optional(integer)
    })
    default = { field = "title" }
  }
  param "items" {
    type = list(object({
      title = string
      meta  = object({
        author = string
        year   = optional(integer)
        tags   = optional(list(string))
      })
    }))
    description = "Nested objects."
    required    = false
  }
  param "matrix" {
    type     = list(list(number))
    required = false
  }

  template {
    text = jsonencode(param.tags)
  }
}
