# input_schema with the JSON Schema 2020-12 vocabulary: composition,
# conditionals, $defs reached by pointer and by $anchor, and keywords the
# validator does not know, all passed to clients as written.
tool "contact" {
  description = "Tool with JSON Schema 2020-12 features"
  input_schema = {
    "$schema" = "https://json-schema.org/draft/2020-12/schema"
    "$comment" = "as the conformance suite declares it, and more"
    type      = "object"
    "$defs" = {
      address = {
        "$anchor" = "addressDef"
        type      = "object"
        properties = {
          street = { type = "string" }
          city   = { type = "string", minLength = 1 }
        }
        required = ["city"]
      }
      code = { type = "string", pattern = "^[A-Z]{2}$" }
    }
    properties = {
      name          = { type = "string", examples = ["Ann"], "x-ui" = { widget = "text" } }
      address       = { "$ref" = "#/$defs/address" }
      billing       = { "$ref" = "#addressDef" }
      contactMethod = { type = "string", enum = ["phone", "email"] }
      phone         = { type = "string" }
      email         = { type = "string", format = "email" }
      country       = { "$ref" = "#/$defs/code" }
      point         = { type = "array", prefixItems = [{ type = "number" }, { type = "number" }], items = false }
      version       = { const = 2 }
      card          = { type = "string" }
      cvc           = { type = "string" }
    }
    allOf = [{ anyOf = [{ required = ["phone"] }, { required = ["email"] }] }]
    if = {
      properties = { contactMethod = { const = "phone" } }
      required   = ["contactMethod"]
    }
    then              = { required = ["phone"] }
    else              = { required = ["email"] }
    dependentRequired = { card = ["cvc"] }
    dependentSchemas  = { cvc = { properties = { cvc = { minLength = 3 } } } }
    unevaluatedProperties = false
    "x-vendor"            = { keep = true }
  }
  template {
    text = "${coalesce(param.phone, param.email)}|${try(param.address.city, "-")}|${try(param.billing.city, "-")}"
  }
}
