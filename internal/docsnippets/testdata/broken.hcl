# A config that does not load: the check must fail on a command that
# validates it.
tool "hello" {
  description = "greets"
  colour      = "blue"
  template {
    text = "hello"
  }
}
