# now() and timestamp() are unknown to the compiler (their value is the
# time of a call), so functions given them do not run at load; their
# mistakes are still reported at load, not at every call.
tool "clock" {
  description = "Current time"
  template { text = formatdate("YYYY-MM-DD hh:mm:ss QQ", now()) } # ERROR: Invalid function argument # DETAIL: invalid date format verb "QQ"
}

tool "later" {
  exec { command = ["printf", "%s", timeadd(now(), "1x")] } # ERROR: Error in function call # DETAIL: unknown unit "x"
}

tool "query" {
  http {
    url   = "https://example.com/"
    query = { day = formatdate("YYYY-MM-DD QQ", timestamp()) } # ERROR: Invalid function argument
  }
}

resource "clock" {
  uri = "time://now"
  template { text = formatdate("QQ", now()) } # ERROR: Invalid function argument
}

# What the tool is called with, and try(), keep a call-time mistake from
# being known at load: no error.
tool "fine" {
  param "format" {
    type = string
  }
  template { text = "${formatdate(param.format, now())} ${try(formatdate("QQ", now()), "-")}" }
}

# A value fixed at load cannot use now(): the error says so.
tool "dir" {
  exec {
    command = ["date"]
    dir     = "/tmp${substr(now(), 0, 0)}" # ERROR: Argument must be constant # DETAIL: It calls now() or timestamp()
  }
}

tool "program" {
  exec { command = split(" ", "date -d ${now()}") } # ERROR: Program not fixed # DETAIL: It calls now() or timestamp()
}
