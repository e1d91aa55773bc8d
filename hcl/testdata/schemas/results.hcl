# Annotations and result blocks with several field types.
tool "hot_list" {
  title       = "Hot list"
  description = "Topics, hottest first."
  annotations {
    title           = "Hot list (annotated)"
    read_only_hint  = true
    open_world_hint = true
    idempotent_hint = true
  }
  param "limit" {
    type    = integer
    default = 10
    minimum = 1
    maximum = 50
  }
  template {
    text = "{}"
  }
  result {
    field "updated_at" {
      path        = "update_time"
      type        = string
      description = "When the list was last updated."
    }
    field "count" {
      path = "count"
      type = integer
    }
    field "score" {
      path     = "score"
      type     = number
      optional = true
    }
    field "ok" {
      path = "success"
      type = bool
    }
    field "topics" {
      path = "data.#(index<=${param.limit})#.{title,hot,url,index}"
      type = list(object({ title = string, hot = string, url = optional(string), index = number }))
    }
    field "counts" {
      path = "counts"
      type = map(integer)
    }
    field "raw" {
      path = "raw"
    }
    field "pair" {
      path = "pair"
      type = tuple([string, integer])
      optional = true
    }
  }
}

tool "delete_all" {
  description = "Annotations only: no title in the tool, destructive."
  annotations {
    title            = "Delete everything"
    destructive_hint = true
    open_world_hint  = false
  }
  template {
    text = "gone"
  }
}
