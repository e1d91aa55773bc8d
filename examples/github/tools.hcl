# GitHub's REST API: list an account's repositories, a repository's
# issues, read one issue, and search code. The token comes from
# GITHUB_TOKEN (a fine-grained token with read access is enough; search
# needs one) and is sensitive: it never shows in a log, an error or a
# result. GITHUB_API_URL points the tools at GitHub Enterprise Server
# (https://HOST/api/v3), as in GitHub Actions.

server {
  name         = "github"
  version      = "1.0.0"
  instructions = "Read GitHub: list_repos, list_issues, get_issue and search_code. list_issues lists pull requests too; get_issue gives a pull request its pull_request link."
}

tool "list_repos" {
  description = "An account's public repositories (a user's or an organization's), most recently updated first."
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  param "owner" {
    type        = string
    description = "The user or organization, such as octocat."
    pattern     = "^[A-Za-z0-9][A-Za-z0-9-]{0,38}$"
  }
  param "per_page" {
    type    = integer
    default = 30
    minimum = 1
    maximum = 100
  }
  http {
    url   = "${env("GITHUB_API_URL", "https://api.github.com")}/users/${param.owner}/repos"
    query = { sort = "updated", per_page = param.per_page }
    headers = {
      Accept                 = "application/vnd.github+json"
      "X-GitHub-Api-Version" = "2022-11-28"
      Authorization          = sensitive("Bearer ${env("GITHUB_TOKEN")}")
    }
    timeout = "15s"
  }
  result {
    field "repos" {
      path = "#.{full_name,description,language,stargazers_count,fork,html_url,updated_at}"
      type = list(object({ full_name = string, description = optional(string), language = optional(string), stargazers_count = number, fork = bool, html_url = string, updated_at = string }))
    }
  }
  # validate and call --offline map this recorded answer: no network, no token.
  example "octocat" {
    args     = { owner = "octocat", per_page = 2 }
    response = file("testdata/repos.json")
    result = {
      repos = [
        { full_name = "octocat/Hello-World", description = "My first repository on GitHub!", language = null, stargazers_count = 3051, fork = false, html_url = "https://github.com/octocat/Hello-World", updated_at = "2026-11-28T19:05:34Z" },
        { full_name = "octocat/boysenberry-repo-1", description = "Testing", language = null, stargazers_count = 348, fork = true, html_url = "https://github.com/octocat/boysenberry-repo-1", updated_at = "2026-11-27T08:12:10Z" },
      ]
    }
  }
}

tool "list_issues" {
  description = "A repository's issues and pull requests, newest first."
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  param "owner" {
    type    = string
    pattern = "^[A-Za-z0-9][A-Za-z0-9-]{0,38}$"
  }
  param "repo" {
    type        = string
    description = "The repository's name, such as Hello-World."
    pattern     = "^[A-Za-z0-9._-]{1,100}$"
  }
  param "state" {
    type    = string
    enum    = ["open", "closed", "all"]
    default = "open"
  }
  param "labels" {
    type        = string
    description = "Comma-separated label names the issues must all have, such as bug,ui."
    required    = false
    max_length  = 200
  }
  param "per_page" {
    type    = integer
    default = 30
    minimum = 1
    maximum = 100
  }
  http {
    url   = "${env("GITHUB_API_URL", "https://api.github.com")}/repos/${param.owner}/${param.repo}/issues"
    query = { state = param.state, labels = param.labels, per_page = param.per_page }
    headers = {
      Accept                 = "application/vnd.github+json"
      "X-GitHub-Api-Version" = "2022-11-28"
      Authorization          = sensitive("Bearer ${env("GITHUB_TOKEN")}")
    }
    timeout = "15s"
  }
  result {
    field "issues" {
      path = "#.{number,title,state,comments,html_url,created_at}"
      type = list(object({ number = number, title = string, state = string, comments = number, html_url = string, created_at = string }))
    }
    field "authors" {
      path        = "#.user.login"
      type        = list(string)
      description = "Who opened each issue, in the same order."
    }
  }
  example "open issues" {
    args     = { owner = "octocat", repo = "Hello-World", per_page = 2 }
    response = file("testdata/issues.json")
    result = {
      issues = [
        { number = 3412, title = "Typo in README", state = "open", comments = 2, html_url = "https://github.com/octocat/Hello-World/issues/3412", created_at = "2026-11-26T14:01:00Z" },
        { number = 3409, title = "Add a licence", state = "open", comments = 0, html_url = "https://github.com/octocat/Hello-World/pull/3409", created_at = "2026-11-25T09:30:00Z" },
      ]
      authors = ["someone", "other"]
    }
  }
  example "a repository that is a path" {
    args  = { owner = "octocat", repo = "../../user" }
    error = "pattern"
  }
}

tool "get_issue" {
  description = "One issue or pull request: its title, state, author, labels and text."
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  param "owner" {
    type    = string
    pattern = "^[A-Za-z0-9][A-Za-z0-9-]{0,38}$"
  }
  param "repo" {
    type    = string
    pattern = "^[A-Za-z0-9._-]{1,100}$"
  }
  param "number" {
    type    = integer
    minimum = 1
  }
  http {
    url = "${env("GITHUB_API_URL", "https://api.github.com")}/repos/${param.owner}/${param.repo}/issues/${param.number}"
    headers = {
      Accept                 = "application/vnd.github+json"
      "X-GitHub-Api-Version" = "2022-11-28"
      Authorization          = sensitive("Bearer ${env("GITHUB_TOKEN")}")
    }
    timeout = "15s"
  }
  result {
    field "title" {
      path = "title"
      type = string
    }
    field "state" {
      path = "state"
      type = string
    }
    field "author" {
      path = "user.login"
      type = string
    }
    field "labels" {
      path = "labels.#.name"
      type = list(string)
    }
    field "body" {
      path     = "body"
      type     = string
      optional = true
    }
    field "pull_request" {
      path        = "pull_request.html_url"
      type        = string
      optional    = true
      description = "The pull request's page, when the issue is one."
    }
    field "url" {
      path = "html_url"
      type = string
    }
  }
  example "an issue" {
    args     = { owner = "octocat", repo = "Hello-World", number = 3412 }
    response = file("testdata/issue.json")
    result = {
      title  = "Typo in README"
      state  = "open"
      author = "someone"
      labels = ["docs"]
      body   = "The second line says \"Hello Wolrd\"."
      url    = "https://github.com/octocat/Hello-World/issues/3412"
    }
  }
}

tool "search_code" {
  description = "Search code on GitHub with GitHub's code search syntax, such as \"addClass repo:jquery/jquery\" or \"http.NewRequest language:go org:golang\"."
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  param "query" {
    type        = string
    description = "The search: words, and qualifiers such as repo:OWNER/NAME, org:, language:, path:."
    min_length  = 1
    max_length  = 256
  }
  param "per_page" {
    type    = integer
    default = 20
    minimum = 1
    maximum = 100
  }
  http {
    url   = "${env("GITHUB_API_URL", "https://api.github.com")}/search/code"
    query = { q = param.query, per_page = param.per_page }
    headers = {
      Accept                 = "application/vnd.github+json"
      "X-GitHub-Api-Version" = "2022-11-28"
      Authorization          = sensitive("Bearer ${env("GITHUB_TOKEN")}")
    }
    timeout = "20s"
    # Code search allows 10 requests a minute: wait rather than fail.
    limit {
      rate  = "10/m"
      burst = 2
    }
  }
  result {
    field "total_count" {
      path = "total_count"
      type = number
    }
    field "files" {
      path = "items.#.{path,html_url}"
      type = list(object({ path = string, html_url = string }))
    }
    field "repositories" {
      path        = "items.#.repository.full_name"
      type        = list(string)
      description = "Each file's repository, in the same order."
    }
  }
  example "a function in a repository" {
    args     = { query = "func main repo:octocat/Hello-World" }
    response = file("testdata/search-code.json")
    result = {
      total_count  = 1
      files        = [{ path = "cmd/hello/hello.go", html_url = "https://github.com/octocat/Hello-World/blob/7fd1a60/cmd/hello/hello.go" }]
      repositories = ["octocat/Hello-World"]
    }
  }
}
