# A template block's max_output and timeout: fixed at load, in range.
tool "output_unit" {
  template {
    text       = "hi"
    max_output = "2MB" # ERROR: Invalid max_output # DETAIL: For 2 MiB, write max_output = 2097152, without quotes.
  }
}

tool "output_zero" {
  template {
    text       = "hi"
    max_output = 0 # ERROR: Invalid max_output # DETAIL: it must be a whole number of bytes from 1 to 16777216 (16 MiB)
  }
}

tool "output_too_large" {
  template {
    text       = "hi"
    max_output = 67108864 # ERROR: Invalid max_output # DETAIL: The max_output argument is 67108864, and it must be a whole number of bytes from 1 to 16777216 (16 MiB)
  }
}

tool "output_from_param" {
  param "n" {
    type = integer
  }
  template {
    text       = "hi"
    max_output = param.n # ERROR: Argument must be constant
  }
}

tool "timeout_no_unit" {
  template {
    text    = "hi"
    timeout = "5" # ERROR: Invalid timeout # DETAIL: "5" is not a duration.
  }
}

tool "timeout_too_long" {
  template {
    text    = "hi"
    timeout = "2h" # ERROR: Timeout out of range # DETAIL: The timeout is 2h, and it must be more than zero and at most 1m.
  }
}

tool "timeout_zero" {
  template {
    text    = "hi"
    timeout = "0s" # ERROR: Timeout out of range
  }
}

tool "text_over_cap" {
  template {
    text       = "more than ten bytes" # ERROR: Template text larger than max_output # DETAIL: The text has 19 bytes, more than the 10 that max_output allows.
    max_output = 10
  }
}

# A function that would build a value over the cap any value may have is
# refused when the config loads, before it builds it.
tool "static_blowup" {
  template {
    text = format("%999999999s", "x") # ERROR: Error in function call # DETAIL: format() would build
  }
}
