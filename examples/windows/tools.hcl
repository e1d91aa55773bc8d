# toolhost examples for Windows: a PowerShell script run with -File and
# parameters, and Windows programs run without cmd.exe. Serve it with
#   toolhost serve C:\Users\me\toolhost\examples\windows\tools.hcl
# (see the README for the Claude Desktop and Cursor configs). On Linux and
# macOS `toolhost validate` checks it, with a warning for each program that
# is not installed there.

server {
  name         = "toolhost-windows-examples"
  version      = "1.0.0"
  instructions = "The Baidu hot list from a PowerShell script, where a program is installed, and the running processes."
}

# The Baidu hot list of the protocol notes' PowerShell server, as a script
# toolhost runs per call: -File runs hotlist.ps1 with its parameters as
# values, never as code (powershell -Command with a parameter in it is
# refused at load). dir = "." runs it in this file's folder, where
# hotlist.ps1 is, whatever folder the editor starts toolhost in.
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
  exec {
    command = ["powershell.exe", "-NoProfile", "-ExecutionPolicy", "Bypass", "-File", "hotlist.ps1", "-Limit", param.limit]
    dir     = "."
    # The script reads HOTLIST_BASE_URL (another server with the same
    # JSON); commands get only the variables given here.
    env = { HOTLIST_BASE_URL = env("HOTLIST_BASE_URL", "https://api.vvhan.com") }
    # hotlist.ps1 writes UTF-8 whatever the console's code page (936 on
    # Chinese Windows), so the tool says so.
    charset = "utf-8"
    timeout = "30s"
  }
  result {
    field "updated_at" {
      path        = "update_time"
      type        = string
      description = "When the list was last updated."
    }
    field "topics" {
      path = "data"
      type = list(object({ title = string, hot = string, url = string, index = number }))
    }
  }

  # The script's output for -Limit 2, recorded: validate maps it offline.
  example "top two" {
    args     = { limit = 2 }
    response = file("testdata/hotlist-2.json")
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
      ]
    }
  }
}

# where.exe: where a program is, on the PATH toolhost gives its commands.
# A Windows program run directly, not through cmd.exe; its output is in
# the console's code page, which toolhost decodes. The pattern keeps the
# name a plain file name (no /R option, no $ENV:pattern search).
tool "find_program" {
  description = "Find where a program is installed, such as notepad.exe or git."
  annotations {
    read_only_hint = true
  }
  param "name" {
    type        = string
    description = "A program's name, with or without its extension; * and ? match any characters."
    pattern     = "^[A-Za-z0-9_*?][A-Za-z0-9._*?-]{0,63}$"
  }
  exec {
    command = ["where.exe", param.name]
    timeout = "10s"
  }
  example "notepad" {
    args     = { name = "notepad.exe" }
    response = "C:\\Windows\\System32\\notepad.exe\r\nC:\\Windows\\notepad.exe\r\n"
    result   = "C:\\Windows\\System32\\notepad.exe\r\nC:\\Windows\\notepad.exe\r\n"
  }
  example "an option" {
    args  = { name = "/R" }
    error = "pattern"
  }
}

# tasklist.exe: the running processes, as CSV (image name, PID, session,
# session number, memory), filtered by image name.
tool "list_processes" {
  description = "List the running processes whose image name matches, as CSV: image name, PID, session name, session number, memory usage."
  annotations {
    read_only_hint = true
  }
  param "image" {
    type        = string
    description = "The image name to match, such as notepad.exe; a * at the end matches any ending."
    default     = "*"
    pattern     = "^[A-Za-z0-9_.*-]{1,64}$"
  }
  exec {
    command = ["tasklist.exe", "/FO", "CSV", "/NH", "/FI", "IMAGENAME eq ${param.image}"]
    timeout = "10s"
  }
}
