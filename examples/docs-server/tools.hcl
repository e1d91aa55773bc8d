# A local docs server: the Markdown pages under docs/ as MCP resources,
# a search tool over them, and prompts that start a conversation from a
# page. Pages are read on every request, so an edit, a new page or a
# whole docs/ replaced by a sync shows at once; clients that subscribe
# hear when a page changes. Reads stay inside docs/ (no "..", no
# symlinks out), and pages over 10 MiB are refused.

server {
  name         = "handbook"
  version      = "1.0.0"
  instructions = "The team handbook. Start from the resource docs://index, read pages as docs:///PATH (such as docs:///runbooks/deploy.md), and use search_docs to find the pages that mention something."
}

# The index, listed among the resources so that a client shows it.
resource "index" {
  uri         = "docs://index"
  title       = "Team handbook"
  description = "The handbook's table of contents."
  mime_type   = "text/markdown"
  file        = "docs/index.md"
}

# Every page, by its path under docs/. {+path} (reserved expansion) lets
# a path have folders: docs:///runbooks/deploy.md. Clients complete the
# path from the files there.
resource_template "page" {
  uri_template = "docs:///{+path}"
  title        = "Handbook page"
  description  = "A page of the handbook by its path, such as onboarding.md or runbooks/rollback.md."
  mime_type    = "text/markdown"
  dir          = "docs"
}

# grep, with the words as one argument of its own ($1), never as part of
# the script; exit status 1 (no match) is an answer, not an error.
tool "search_docs" {
  description = "Find the lines of the handbook's pages that mention some words (case-insensitive), as PATH:LINE:TEXT, at most 5 a page. Read a page whole as docs:///PATH."
  annotations {
    read_only_hint = true
  }
  param "words" {
    type        = string
    description = "The words to look for, as they appear in the text, such as roll back."
    min_length  = 2
    max_length  = 200
    # sh hands it to grep after -e, as the pattern: a leading "-" is text.
    allow_flags = true
  }
  exec {
    command = ["sh", "-c", "grep -rniF --include='*.md' -m 5 -e \"$1\" -- * || { [ $? -eq 1 ] && echo \"No page mentions: $1\"; }", "search_docs", param.words]
    dir     = "docs"
    timeout = "10s"
  }
  offline = "example"
  example "deploy" {
    args     = { words = "error rate" }
    response = "runbooks/deploy.md:7:3. Run `make deploy TAG=v1.8.2` and watch the error rate for 15 minutes.\nrunbooks/deploy.md:9:If the error rate doubles, roll back at once: see [Rolling back](rollback.md).\n"
    result   = "runbooks/deploy.md:7:3. Run `make deploy TAG=v1.8.2` and watch the error rate for 15 minutes.\nrunbooks/deploy.md:9:If the error rate doubles, roll back at once: see [Rolling back](rollback.md).\n"
  }
}

# A question about one page, with the page embedded in the message.
prompt "ask_page" {
  description = "Ask a question about one page of the handbook."
  arg "path" {
    description = "The page, such as runbooks/deploy.md."
    completions = ["index.md", "onboarding.md", "runbooks/deploy.md", "runbooks/rollback.md"]
  }
  arg "question" {
    description = "What you want to know."
  }
  message "user" {
    resource {
      uri = "docs:///${arg.path}"
    }
  }
  message "user" {
    text = "Using the page above, answer: ${arg.question}"
  }
}

# A checklist for a task, built from the pages that mention it.
prompt "checklist" {
  description = "Turn the handbook's pages about a task into a checklist."
  arg "task" {
    description = "The task, such as deploy or roll back."
    enum        = ["deploy", "roll back", "onboard"]
  }
  message "user" {
    text = "Call search_docs with words \"${arg.task}\", read the pages it finds, and write a numbered checklist for someone doing it for the first time. Cite each page you used."
  }
}
