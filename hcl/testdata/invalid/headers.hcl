# header: a param mirrored into an Mcp-Param-* request header (x-mcp-header).
tool "bad_headers" {
  param "empty" {
    type   = string
    header = "" # ERROR: Invalid header # DETAIL: it cannot be empty
  }
  param "space" {
    type   = string
    header = "Data Center" # ERROR: Invalid header # DETAIL: has a space, which a header name cannot hold: it takes letters, digits and !#$%&'*+-.^_`|~ only (an HTTP token). Try header = "Data-Center".
  }
  param "colon" {
    type   = string
    header = "Region:" # ERROR: Invalid header # DETAIL: has ':'
  }
  param "accent" {
    type   = string
    header = "Région" # ERROR: Invalid header # DETAIL: which is not ASCII
  }
  param "control" {
    type   = string
    header = "Re\tgion" # ERROR: Invalid header # DETAIL: the control character U+0009
  }
  param "prefixed" {
    type   = string
    header = "Mcp-Param-Zone" # ERROR: Invalid header # DETAIL: Write header = "Zone".
  }
  param "ratio" {
    type   = number
    header = "Ratio" # ERROR: Parameter cannot be mirrored into a header # DETAIL: declare it type = integer
  }
  param "tags" {
    type   = list(string)
    header = "Tags" # ERROR: Parameter cannot be mirrored into a header # DETAIL: lists, sets, tuples, maps and objects have no header form
  }
  param "target" {
    type   = object({ region = string })
    header = "Target" # ERROR: Parameter cannot be mirrored into a header
  }
  param "token" {
    type      = string
    sensitive = true
    header    = "Token" # ERROR: Sensitive parameter mirrored into a header # DETAIL: access logs record headers
  }
  template {
    text = "x"
  }
}

tool "same_header" {
  param "region" {
    type   = string
    header = "Region"
  }
  param "zone" {
    type   = string
    header = "region" # ERROR: Two params mirrored into one header # DETAIL: "zone" and "region" (at testdata/invalid/headers.hcl:52:14) are both mirrored into Mcp-Param-Region
  }
  template {
    text = "x"
  }
}

tool "header_in_form" {
  ask {
    message = "Where?"
    field "region" {
      type   = string
      header = "Region" # ERROR: header in an ask field
    }
  }
  template {
    text = "x"
  }
}

tool "schema_headers" {
  input_schema = {
    type = "object"
    properties = {
      region = { type = "string", "x-mcp-header" = "Region" }
      zone   = { type = "string", "x-mcp-header" = "REGION" } # ERROR: Invalid x-mcp-header # DETAIL: Mcp-Param-REGION is already the header of /properties/region
      ratio  = { type = "number", "x-mcp-header" = "Ratio" } # ERROR: Invalid x-mcp-header # DETAIL: the property's type is "number"
      tags = {
        type  = "array"
        items = { type = "string", "x-mcp-header" = "Tag" } # ERROR: Invalid x-mcp-header # DETAIL: reachable from the top of the schema through properties alone
      }
      bad_name = { type = "string", "x-mcp-header" = "a b" } # ERROR: Invalid x-mcp-header # DETAIL: Try x-mcp-header = "a-b"
      number   = { type = "string", "x-mcp-header" = 7 } # ERROR: Invalid x-mcp-header # DETAIL: a string such as "Region", not 7
      target = {
        type       = "object"
        properties = { city = { type = "string", "x-mcp-header" = "City" } }
      }
    }
  }
  template {
    text = "x"
  }
}
