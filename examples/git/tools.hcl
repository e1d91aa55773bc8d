# Read-only git tools: the log, a commit, a diff, who wrote each line, and
# the working tree's status, of the repository GIT_REPO names (default:
# this file's directory, which in a checkout of toolhost is toolhost's).
#   GIT_REPO=/home/me/project toolhost serve examples/git/tools.hcl
# Every value is one argument of git's, never a shell's; paths come after
# "--", so git reads them as paths, never as options or revisions, and
# their pattern keeps them inside the repository (no "..", no leading "/",
# no pathspec magic). Revisions must start with a letter or digit, so they
# are never options. --no-ext-diff and --no-textconv keep git from running
# the diff programs a repository's config may name.

server {
  name         = "git"
  version      = "1.0.0"
  instructions = "Read a git repository: its history (git_log), one commit (git_show), changes (git_diff), line authors (git_blame) and uncommitted work (git_status). Nothing here changes the repository."
}

tool "git_log" {
  description = "The latest commits, newest first, one a line: hash, author, date, subject (tab-separated). Give a path to see only the commits that touched it."
  annotations {
    read_only_hint = true
  }
  # Paths: segments of letters, digits, _ and -, with dots inside or one
  # leading dot (.github); "." is the whole repository.
  param "path" {
    type        = string
    description = "A file or directory inside the repository, relative to its top, such as src/main.go; . for all."
    default     = "."
    pattern     = "^(\\.|\\.?[A-Za-z0-9_][A-Za-z0-9_-]*(\\.[A-Za-z0-9_-]+)*(/\\.?[A-Za-z0-9_][A-Za-z0-9_-]*(\\.[A-Za-z0-9_-]+)*)*)$"
    max_length  = 512
  }
  param "max_count" {
    type        = integer
    description = "How many commits to show."
    default     = 20
    minimum     = 1
    maximum     = 200
  }
  exec {
    command = ["git", "--no-pager", "log", "--no-color", "--date=short", "--format=%h%x09%an%x09%ad%x09%s", "--max-count=${param.max_count}", "--", param.path]
    dir     = env("GIT_REPO", ".")
    timeout = "20s"
  }
  # validate and call --offline answer from this recording: neither needs
  # git nor a repository.
  offline = "example"
  example "two commits" {
    args     = { max_count = 2 }
    response = "3f2a9c1\tAda Lovelace\t2026-11-20\tparser: numbers with a leading dot\n9b8e7d6\tAlan Turing\t2026-11-18\tdocs: the grammar in one page\n"
    result   = "3f2a9c1\tAda Lovelace\t2026-11-20\tparser: numbers with a leading dot\n9b8e7d6\tAlan Turing\t2026-11-18\tdocs: the grammar in one page\n"
  }
  example "a path out of the repository" {
    args  = { path = "../secrets" }
    error = "pattern"
  }
  example "an option for a path" {
    args  = { path = "--output=/tmp/x" }
    error = "pattern"
  }
}

tool "git_show" {
  description = "One commit: its message, the files it changed with counts, and its patch."
  annotations {
    read_only_hint = true
  }
  param "rev" {
    type        = string
    description = "A commit: a hash, a branch or tag name, or HEAD, HEAD~2 and the like."
    default     = "HEAD"
    pattern     = "^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}([~^][0-9]{0,3})*$"
  }
  exec {
    command    = ["git", "--no-pager", "show", "--no-color", "--no-ext-diff", "--no-textconv", "--stat", "--patch", "--end-of-options", param.rev, "--"]
    dir        = env("GIT_REPO", ".")
    timeout    = "20s"
    max_output = 262144
  }
  offline = "example"
  example "a commit" {
    args     = { rev = "3f2a9c1" }
    response = file("testdata/show.txt")
    result   = file("testdata/show.txt")
  }
  example "an option for a revision" {
    args  = { rev = "--output=/tmp/x" }
    error = "pattern"
  }
}

tool "git_diff" {
  description = "The changes between a commit and the working tree (uncommitted work against HEAD by default), as a unified diff."
  annotations {
    read_only_hint = true
  }
  param "base" {
    type        = string
    description = "The commit to compare the working tree with, such as HEAD, HEAD~3 or main."
    default     = "HEAD"
    pattern     = "^[A-Za-z0-9][A-Za-z0-9._/-]{0,99}([~^][0-9]{0,3})*$"
  }
  param "path" {
    type        = string
    description = "A file or directory inside the repository; . for all."
    default     = "."
    pattern     = "^(\\.|\\.?[A-Za-z0-9_][A-Za-z0-9_-]*(\\.[A-Za-z0-9_-]+)*(/\\.?[A-Za-z0-9_][A-Za-z0-9_-]*(\\.[A-Za-z0-9_-]+)*)*)$"
    max_length  = 512
  }
  exec {
    command    = ["git", "--no-pager", "diff", "--no-color", "--no-ext-diff", "--no-textconv", "--end-of-options", param.base, "--", param.path]
    dir        = env("GIT_REPO", ".")
    timeout    = "20s"
    max_output = 262144
  }
  offline = "example"
  example "nothing changed" {
    args     = {}
    response = ""
    result   = ""
  }
}

tool "git_blame" {
  description = "Who last changed each line of a file, and in which commit: hash, author, date, line number, text."
  annotations {
    read_only_hint = true
  }
  param "path" {
    type        = string
    description = "A file inside the repository, relative to its top."
    pattern     = "^\\.?[A-Za-z0-9_][A-Za-z0-9_-]*(\\.[A-Za-z0-9_-]+)*(/\\.?[A-Za-z0-9_][A-Za-z0-9_-]*(\\.[A-Za-z0-9_-]+)*)*$"
    max_length  = 512
  }
  exec {
    command    = ["git", "--no-pager", "blame", "--date=short", "--", param.path]
    dir        = env("GIT_REPO", ".")
    timeout    = "20s"
    max_output = 524288
  }
  offline = "example"
  example "a file" {
    args     = { path = "README.md" }
    response = "9b8e7d6a (Alan Turing   2026-11-18 1) # calc\n3f2a9c1e (Ada Lovelace 2026-11-20 2) A calculator that reads .5 as 0.5.\n"
    result   = "9b8e7d6a (Alan Turing   2026-11-18 1) # calc\n3f2a9c1e (Ada Lovelace 2026-11-20 2) A calculator that reads .5 as 0.5.\n"
  }
}

tool "git_status" {
  description = "The current branch and the files changed, staged or untracked, one a line (git status --porcelain)."
  annotations {
    read_only_hint = true
  }
  exec {
    command = ["git", "--no-pager", "status", "--porcelain=v1", "--branch"]
    dir     = env("GIT_REPO", ".")
    timeout = "20s"
  }
  offline = "example"
  example "one file changed" {
    args     = {}
    response = "## main...origin/main\n M README.md\n?? notes.txt\n"
    result   = "## main...origin/main\n M README.md\n?? notes.txt\n"
  }
}
