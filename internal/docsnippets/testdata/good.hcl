# A config that loads, for the fixtures' commands.
tool "hello" {
  description = "greets"
  param "name" {
    type = string
  }
  template {
    text = "hello ${param.name}"
  }
  example "world" {
    args   = { name = "world" }
    result = "hello world"
  }
}
