# http-custom-header-server-validation (SEP-2243): tools whose params are
# mirrored into Mcp-Param-* request headers (header = "..." puts
# x-mcp-header in the schema). The scenario calls the first tool listed
# with such a param, by its first mirrored string param (region), and
# checks that the server decodes =?base64?...?= values, refuses bad
# base64 and a missing header with 400 and -32020, and takes other values
# as they are. The params are those of the suite's client scenario
# (http-custom-headers), so that the same tools serve both.

tool "test_custom_headers" {
  description = "A tool with params mirrored into Mcp-Param-* headers, for custom header mirroring and encoding."
  param "region" {
    type        = string
    description = "Plain ASCII string value."
    header      = "Region"
  }
  param "priority" {
    type        = integer
    description = "Integer value."
    header      = "Priority"
  }
  param "verbose" {
    type        = bool
    description = "Boolean value."
    header      = "Verbose"
    required    = false
  }
  param "debug" {
    type        = bool
    description = "Boolean true value."
    header      = "Debug"
    required    = false
  }
  param "empty_val" {
    type        = string
    description = "Empty string value."
    header      = "EmptyVal"
    required    = false
  }
  param "method_val" {
    type        = string
    description = "Mirrored into Mcp-Param-Method, not Mcp-Method."
    header      = "Method"
    required    = false
  }
  param "float_val" {
    type        = number
    description = "Floating point value, not mirrored."
    required    = false
  }
  param "non_ascii_val" {
    type        = string
    description = "Non-ASCII string value, sent base64-encoded."
    header      = "NonAscii"
    required    = false
  }
  param "whitespace_val" {
    type        = string
    description = "String with leading and trailing spaces, sent base64-encoded."
    header      = "Whitespace"
    required    = false
  }
  param "leading_space_val" {
    type        = string
    description = "String with a leading space, sent base64-encoded."
    header      = "LeadingSpace"
    required    = false
  }
  param "trailing_space_val" {
    type        = string
    description = "String with a trailing space, sent base64-encoded."
    header      = "TrailingSpace"
    required    = false
  }
  param "internal_space_val" {
    type        = string
    description = "String with inner spaces only, sent as it is."
    header      = "InternalSpace"
    required    = false
  }
  param "control_char_val" {
    type        = string
    description = "String with a control character, sent base64-encoded."
    header      = "ControlChar"
    required    = false
  }
  param "crlf_val" {
    type        = string
    description = "String with CR and LF, sent base64-encoded."
    header      = "CrLf"
    required    = false
  }
  param "tab_val" {
    type        = string
    description = "String with a leading tab, sent base64-encoded."
    header      = "Tab"
    required    = false
  }
  param "query" {
    type        = string
    description = "Not mirrored."
  }
  template {
    text = "region=${param.region} priority=${param.priority} query=${param.query}"
  }
}

tool "test_custom_headers_null" {
  description = "A tool for null and omitted mirrored params: their headers are left out."
  param "region" {
    header = "Region"
  }
  param "priority" {
    type   = integer
    header = "Priority"
  }
  param "verbose" {
    type        = bool
    description = "Boolean value, sent as null to test that its header is left out."
    header      = "Verbose"
    required    = false
  }
  param "query" {}
  template {
    text = "region=${param.region} query=${param.query}"
  }
}
