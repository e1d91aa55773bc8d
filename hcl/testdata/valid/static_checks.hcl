# Everything here passes the static checks with no diagnostic at all: the
# checks must not cry wolf.
tool "items" {
  description = env("TOOLHOST_VALID_UNSET_DESC", "Items")
  param "ids" {
    type = list(number)
  }
  param "filter" {
    type     = object({ field = string, value = optional(string) })
    required = false
  }
  param "code" {
    type    = string
    pattern = "^(?<word>[a-z]+)-\\p{Nd}+$"
    default = "abc-1"
  }
  http {
    url     = "${env("TOOLHOST_VALID_UNSET_URL", "https://api.example.com")}/items"
    headers = { X-Ids = join(",", param.ids), X-Filter = jsonencode(param.filter) }
    query   = { id = param.ids, code = "c-${param.code}", all = "${length(param.ids)} ids" }
    method  = "POST"
    body    = jsonencode({ ids = param.ids, note = "%{for i in param.ids}${i};%{endfor}" })
  }
  result {
    field "names" {
      path = "items.#(id>0)#.name"
      type = list(string)
    }
    field "first" {
      path = "items.0.{id,name,\"labels\":tags}"
      type = object({ id = integer, name = string, labels = list(string) })
    }
    field "count" {
      path = "items|#"
      type = integer
    }
    field "total" {
      path = "total"
      type = integer
    }
    field "reversed" {
      path     = "items.@reverse.0.name"
      type     = string
      optional = true
    }
  }
  example "recorded" {
    description = "two items"
    args        = { ids = [1, 2] }
    response    = file("recorded/items.json")
    result = {
      names    = ["a", "b"]
      first    = { id = 1, name = "a", labels = ["x"] }
      count    = 2
      total    = 2
      reversed = "b"
    }
  }
  example "refused" {
    args  = { ids = [1], code = "ABC" }
    error = "does not match the pattern"
  }
}

tool "run" {
  param "words" {
    type = list(string)
  }
  exec {
    command = ["printf", "%s\\n", "--", join(" ", param.words)]
    env     = { WORDS = join(" ", param.words), HOME_DIR = env("HOME", "/") }
    stdin   = "${length(param.words)} words"
  }
}
