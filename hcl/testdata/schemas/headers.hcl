# Params mirrored into request headers: each property gets x-mcp-header.
tool "headers" {
  description = "Runs a query in a region."

  param "region" {
    type        = string
    description = "The region to run in."
    header      = "Region"
  }
  param "priority" {
    type    = integer
    header  = "Priority"
    default = 1
  }
  param "verbose" {
    type     = bool
    header   = "Verbose"
    required = false
  }
  param "query" {
    type = string
  }
  template {
    text = "${param.region} ${param.query}"
  }
}
