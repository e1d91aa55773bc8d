tool "greet" {
  input_schema = {
    "$schema" = "https://json-schema.org/draft/2020-12/schema"
    type      = "object"
    "$defs" = {
      address = {
        type       = "object"
        properties = { city = { type = "string", minLength = 1 } }
        required   = ["city"]
      }
    }
    properties = {
      name    = { type = "string" }
      address = { "$ref" = "#/$defs/address" }
      tags    = { type = "array", items = { type = "string" }, maxItems = 2 }
    }
    required             = ["name"]
    additionalProperties = false
  }
  template {
    text = "${param.name}|${try(param.address.city, "-")}|${param.tags == null ? "-" : join(",", param.tags)}"
  }
}
