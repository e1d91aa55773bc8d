# toolhost examples: every example tool from the documents the project
# started from. Run `toolhost inspect examples/tools.hcl` to see what a client
# sees, or `toolhost call examples/tools.hcl say_hello name=world`.

server {
  name         = "toolhost-examples"
  version      = "1.0.0"
  instructions = "Hot lists, time, greetings, files and commands."
}

# The Baidu hot list (the PowerShell server in the protocol notes). Set
# HOTLIST_BASE_URL to point it at another server with the same JSON shape.
tool "getBaiduHotspot" {
  title       = "Baidu hot list"
  description = "Get Baidu Hot News List: realtime hot search topics, hottest first."
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  param "limit" {
    type        = integer
    description = "How many topics to return."
    default     = 10
    minimum     = 1
    maximum     = 50
  }
  http {
    method  = "GET"
    url     = "${env("HOTLIST_BASE_URL", "https://api.vvhan.com")}/api/hotlist/baiduRD"
    headers = { Accept = "application/json" }
    timeout = "10s"
  }
  result {
    field "updated_at" {
      path        = "update_time"
      type        = string
      description = "When the list was last updated."
    }
    field "topics" {
      path = "data.#(index<=${param.limit})#.{title,hot,url,index}"
      type = list(object({ title = string, hot = string, url = string, index = number }))
    }
  }

  # Examples are tests that `toolhost validate` runs offline: the result
  # mapping runs on the recorded response and must give exactly this result.
  example "top three" {
    args     = { limit = 3 }
    response = file("testdata/hotlist.json")
    result = {
      updated_at = "2025-04-25 16:36:39"
      topics = [
        {
          title = "神舟二十号发射圆满成功"
          hot   = "789.5万"
          url   = "https://www.baidu.com/s?wd=%E7%A5%9E%E8%88%9F%E4%BA%8C%E5%8D%81%E5%8F%B7%E5%8F%91%E5%B0%84%E5%9C%86%E6%BB%A1%E6%88%90%E5%8A%9F"
          index = 1
        },
        {
          title = "全国多地迎来降雨"
          hot   = "765.1万"
          url   = "https://www.baidu.com/s?wd=%E5%85%A8%E5%9B%BD%E5%A4%9A%E5%9C%B0%E8%BF%8E%E6%9D%A5%E9%99%8D%E9%9B%A8"
          index = 2
        },
        {
          title = "新能源汽车销量创新高"
          hot   = "701.3万"
          url   = "https://www.baidu.com/s?wd=%E6%96%B0%E8%83%BD%E6%BA%90%E6%B1%BD%E8%BD%A6%E9%94%80%E9%87%8F%E5%88%9B%E6%96%B0%E9%AB%98"
          index = 3
        },
      ]
    }
  }
  example "limit above the maximum" {
    args  = { limit = 99 }
    error = "greater than the maximum 50"
  }
}

# say_hello from the SSE walkthrough.
tool "say_hello" {
  description = "Returns a friendly greeting"
  param "name" {
    type        = string
    description = "The name to greet"
  }
  template {
    text = "hello ${param.name}"
  }
  example "world" {
    args   = { name = "world" }
    result = "hello world"
  }
}

# get_current_time from the framed-protocol document.
tool "get_current_time" {
  description = "Current date and time"
  param "format" {
    type    = string
    enum    = ["simple", "detailed"]
    default = "simple"
  }
  template {
    text = param.format == "simple" ? formatdate("YYYY-MM-DD hh:mm:ss", now()) : formatdate("EEEE, DD MMMM YYYY hh:mm:ss ZZZ", now())
  }
}

# echo from the Python server sketch: argv only, the text is one argument.
# As there, text is optional: without it the answer is the empty text.
tool "echo" {
  description = "Echo input"
  param "text" {
    type    = string
    default = ""
    # printf "%s" takes its argument as data, so "-5 degrees" is fine here.
    allow_flags = true
  }
  exec {
    command = ["printf", "%s", param.text]
    timeout = "5s"
  }
  example "no text" {
    args     = {}
    response = ""
    result   = ""
  }
}

# create_file from the framed-protocol document: writes a file into
# examples/workspace. The name pattern keeps it a plain file name there.
tool "create_file" {
  description = "Create a file in the workspace folder and write the content into it."
  annotations {
    destructive_hint = false
  }
  param "filename" {
    type        = string
    description = "File name, such as notes.txt (letters, digits, '.', '_' and '-'; no folders)."
    pattern     = "^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$"
  }
  param "content" {
    type        = string
    description = "The file's content."
    max_length  = 1048576
  }
  exec {
    command = ["sh", "-c", "cat > \"$1\" && printf 'created %s (%s bytes)' \"$1\" \"$(wc -c < \"$1\" | tr -d ' ')\"", "create_file", param.filename]
    stdin   = param.content
    dir     = "workspace"
    timeout = "5s"
  }
}

# get_weather from the protocol overview (city 北京, unit celsius or
# fahrenheit), backed by wttr.in's JSON. WEATHER_BASE_URL points it elsewhere.
tool "get_weather" {
  description = "Current weather for a city: temperature, conditions and humidity."
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  param "city" {
    type        = string
    description = "City name, such as 北京 or London."
    min_length  = 1
    max_length  = 100
  }
  param "unit" {
    type    = string
    enum    = ["celsius", "fahrenheit"]
    default = "celsius"
  }
  http {
    url     = "${env("WEATHER_BASE_URL", "https://wttr.in")}/${param.city}?format=j1"
    timeout = "10s"
  }
  result {
    field "city" {
      path     = "nearest_area.0.areaName.0.value"
      type     = string
      optional = true
    }
    field "temperature" {
      path        = "current_condition.0.${param.unit == "celsius" ? "temp_C" : "temp_F"}"
      type        = number
      description = "Temperature in the requested unit."
    }
    field "conditions" {
      path = "current_condition.0.weatherDesc.0.value"
      type = string
    }
    field "humidity" {
      path        = "current_condition.0.humidity"
      type        = integer
      description = "Relative humidity in percent."
    }
  }
  example "Beijing in fahrenheit" {
    args     = { city = "北京", unit = "fahrenheit" }
    response = file("testdata/weather-beijing.json")
    result   = { city = "Beijing", temperature = 70, conditions = "Sunny", humidity = 40 }
  }
}

# The protocol overview's get_weather answer carries text and an image/png
# item: wttr.in draws the forecast as a PNG, returned beside a caption.
tool "get_weather_map" {
  description = "A picture (PNG) of the weather forecast for a city, with a caption."
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  param "city" {
    type        = string
    description = "City name, such as 北京 or London."
    min_length  = 1
    max_length  = 100
  }
  http {
    url     = "${env("WEATHER_BASE_URL", "https://wttr.in")}/${param.city}.png"
    timeout = "15s"
  }
  result {
    text {
      text = "${param.city}天气预报"
    }
    image {}
  }
}

# A long-running command, as in the stdio article's progress notifications:
# it reports progress with ::progress lines on stderr and logs the rest.
tool "count_files" {
  description = "Count the files in the notes folder, slowly, reporting progress."
  annotations {
    read_only_hint = true
  }
  param "delay" {
    type        = number
    description = "Seconds to wait per file (to watch the progress)."
    default     = 0.2
    minimum     = 0
    maximum     = 2
  }
  exec {
    command    = ["sh", "-c", "set -- notes/*; n=$#; i=0; for f in \"$@\"; do i=$((i+1)); echo \"::progress $i/$n $f\" >&2; echo \"counted $f\" >&2; sleep \"$0\"; done; echo \"$n files\"", param.delay]
    stderr_log = "info"
    timeout    = "60s"
  }
}

# Embedded resources and links to them, as the content types of the
# protocol overview show.
tool "get_report" {
  description = "The Q4 report, embedded, with a link to it."
  annotations {
    read_only_hint = true
  }
  result {
    text {
      text = "The fourth-quarter report:"
    }
    resource {
      uri = "file:///reports/q4.md"
    }
    resource_link {
      uri = "file:///reports/q4.md"
    }
  }
}

# A destructive tool asks the user first (elicitation); a client that
# cannot ask gets a refusal.
tool "delete_file" {
  description = "Delete a file from the workspace folder, after asking the user."
  annotations {
    destructive_hint = true
  }
  param "filename" {
    type        = string
    description = "File name in the workspace folder, such as notes.txt."
    pattern     = "^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$"
  }
  confirm = "Delete ${param.filename} from the workspace?"
  exec {
    command = ["sh", "-c", "rm -- \"$1\" && printf 'deleted %s' \"$1\"", "delete_file", param.filename]
    dir     = "workspace"
    timeout = "5s"
  }
}

resource "q4_report" {
  uri         = "file:///reports/q4.md"
  title       = "Q4 report"
  description = "Fourth-quarter financial report"
  mime_type   = "text/markdown"
  file        = "reports/q4.md"
}

resource_template "notes" {
  uri_template = "notes:///{path}"
  description  = "Markdown notes"
  mime_type    = "text/markdown"
  dir          = "notes"
}

prompt "summarize_hotlist" {
  description = "Summarize today's hot topics"
  arg "count" {
    description = "How many topics to cover"
    required    = false
    completions = ["5", "10", "20", "50"]
  }
  message "user" {
    text = "Call getBaiduHotspot with limit ${coalesce(arg.count, "10")} and summarize the topics."
  }
}
