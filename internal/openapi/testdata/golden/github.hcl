# Tools for GitHub's official OpenAPI spec + Octokit extension 23.0.2, made by toolhost import openapi from github-api.json.gz (OpenAPI 3.0.3).
# 10 tools of the document's 1223 operations, chosen with --tag meta --tag emojis --operation issues/create --operation issues/list-for-repo --operation repos/delete --operation issues/get.
# Review them before serving: keep the tools a model needs, sharpen their
# descriptions, and run toolhost validate.
# Base URL: GITHUB_BASE_URL, by default https://api.github.com.

# GET /
tool "meta_root" {
  description = "GitHub API Root. Get Hypermedia links to resources accessible in GitHub's REST API"
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  http {
    method = "GET"
    url    = "${env("GITHUB_BASE_URL", "https://api.github.com")}/"
    headers = {
      Accept = "application/json"
    }
  }
  result {
    field "authorizations_url" {
      path = "authorizations_url"
      type = string
    }
    field "code_search_url" {
      path = "code_search_url"
      type = string
    }
    field "commit_search_url" {
      path = "commit_search_url"
      type = string
    }
    field "current_user_authorizations_html_url" {
      path = "current_user_authorizations_html_url"
      type = string
    }
    field "current_user_repositories_url" {
      path = "current_user_repositories_url"
      type = string
    }
    field "current_user_url" {
      path = "current_user_url"
      type = string
    }
    field "emails_url" {
      path = "emails_url"
      type = string
    }
    field "emojis_url" {
      path = "emojis_url"
      type = string
    }
    field "events_url" {
      path = "events_url"
      type = string
    }
    field "feeds_url" {
      path = "feeds_url"
      type = string
    }
    field "followers_url" {
      path = "followers_url"
      type = string
    }
    field "following_url" {
      path = "following_url"
      type = string
    }
    field "gists_url" {
      path = "gists_url"
      type = string
    }
    field "hub_url" {
      path     = "hub_url"
      type     = string
      optional = true
    }
    field "issue_search_url" {
      path = "issue_search_url"
      type = string
    }
    field "issues_url" {
      path = "issues_url"
      type = string
    }
    field "keys_url" {
      path = "keys_url"
      type = string
    }
    field "label_search_url" {
      path = "label_search_url"
      type = string
    }
    field "notifications_url" {
      path = "notifications_url"
      type = string
    }
    field "organization_repositories_url" {
      path = "organization_repositories_url"
      type = string
    }
    field "organization_teams_url" {
      path = "organization_teams_url"
      type = string
    }
    field "organization_url" {
      path = "organization_url"
      type = string
    }
    field "public_gists_url" {
      path = "public_gists_url"
      type = string
    }
    field "rate_limit_url" {
      path = "rate_limit_url"
      type = string
    }
    field "repository_search_url" {
      path = "repository_search_url"
      type = string
    }
    field "repository_url" {
      path = "repository_url"
      type = string
    }
    field "starred_gists_url" {
      path = "starred_gists_url"
      type = string
    }
    field "starred_url" {
      path = "starred_url"
      type = string
    }
    field "topic_search_url" {
      path     = "topic_search_url"
      type     = string
      optional = true
    }
    field "user_organizations_url" {
      path = "user_organizations_url"
      type = string
    }
    field "user_repositories_url" {
      path = "user_repositories_url"
      type = string
    }
    field "user_search_url" {
      path = "user_search_url"
      type = string
    }
    field "user_url" {
      path = "user_url"
      type = string
    }
  }
  example "from the document" {
    response = "{\"authorizations_url\":\"https://api.github.com/authorizations\",\"code_search_url\":\"https://api.github.com/search/code?q={query}{\\u0026page,per_page,sort,order}\",\"commit_search_url\":\"https://api.github.com/search/commits?q={query}{\\u0026page,per_page,sort,order}\",\"current_user_authorizations_html_url\":\"https://github.com/settings/connections/applications{/client_id}\",\"current_user_repositories_url\":\"https://api.github.com/user/repos{?type,page,per_page,sort}\",\"current_user_url\":\"https://api.github.com/user\",\"emails_url\":\"https://api.github.com/user/emails\",\"emojis_url\":\"https://api.github.com/emojis\",\"events_url\":\"https://api.github.com/events\",\"feeds_url\":\"https://api.github.com/feeds\",\"followers_url\":\"https://api.github.com/user/followers\",\"following_url\":\"https://api.github.com/user/following{/target}\",\"gists_url\":\"https://api.github.com/gists{/gist_id}\",\"hub_url\":\"https://api.github.com/hub\",\"issue_search_url\":\"https://api.github.com/search/issues?q={query}{\\u0026page,per_page,sort,order}\",\"issues_url\":\"https://api.github.com/issues\",\"keys_url\":\"https://api.github.com/user/keys\",\"label_search_url\":\"https://api.github.com/search/labels?q={query}\\u0026repository_id={repository_id}{\\u0026page,per_page}\",\"notifications_url\":\"https://api.github.com/notifications\",\"organization_repositories_url\":\"https://api.github.com/orgs/{org}/repos{?type,page,per_page,sort}\",\"organization_teams_url\":\"https://api.github.com/orgs/{org}/teams\",\"organization_url\":\"https://api.github.com/orgs/{org}\",\"public_gists_url\":\"https://api.github.com/gists/public\",\"rate_limit_url\":\"https://api.github.com/rate_limit\",\"repository_search_url\":\"https://api.github.com/search/repositories?q={query}{\\u0026page,per_page,sort,order}\",\"repository_url\":\"https://api.github.com/repos/{owner}/{repo}\",\"starred_gists_url\":\"https://api.github.com/gists/starred\",\"starred_url\":\"https://api.github.com/user/starred{/owner}{/repo}\",\"topic_search_url\":\"https://api.github.com/search/topics?q={query}{\\u0026page,per_page}\",\"user_organizations_url\":\"https://api.github.com/user/orgs\",\"user_repositories_url\":\"https://api.github.com/users/{user}/repos{?type,page,per_page,sort}\",\"user_search_url\":\"https://api.github.com/search/users?q={query}{\\u0026page,per_page,sort,order}\",\"user_url\":\"https://api.github.com/users/{user}\"}"
    result = {
      authorizations_url                   = "https://api.github.com/authorizations"
      code_search_url                      = "https://api.github.com/search/code?q={query}{&page,per_page,sort,order}"
      commit_search_url                    = "https://api.github.com/search/commits?q={query}{&page,per_page,sort,order}"
      current_user_authorizations_html_url = "https://github.com/settings/connections/applications{/client_id}"
      current_user_repositories_url        = "https://api.github.com/user/repos{?type,page,per_page,sort}"
      current_user_url                     = "https://api.github.com/user"
      emails_url                           = "https://api.github.com/user/emails"
      emojis_url                           = "https://api.github.com/emojis"
      events_url                           = "https://api.github.com/events"
      feeds_url                            = "https://api.github.com/feeds"
      followers_url                        = "https://api.github.com/user/followers"
      following_url                        = "https://api.github.com/user/following{/target}"
      gists_url                            = "https://api.github.com/gists{/gist_id}"
      hub_url                              = "https://api.github.com/hub"
      issue_search_url                     = "https://api.github.com/search/issues?q={query}{&page,per_page,sort,order}"
      issues_url                           = "https://api.github.com/issues"
      keys_url                             = "https://api.github.com/user/keys"
      label_search_url                     = "https://api.github.com/search/labels?q={query}&repository_id={repository_id}{&page,per_page}"
      notifications_url                    = "https://api.github.com/notifications"
      organization_repositories_url        = "https://api.github.com/orgs/{org}/repos{?type,page,per_page,sort}"
      organization_teams_url               = "https://api.github.com/orgs/{org}/teams"
      organization_url                     = "https://api.github.com/orgs/{org}"
      public_gists_url                     = "https://api.github.com/gists/public"
      rate_limit_url                       = "https://api.github.com/rate_limit"
      repository_search_url                = "https://api.github.com/search/repositories?q={query}{&page,per_page,sort,order}"
      repository_url                       = "https://api.github.com/repos/{owner}/{repo}"
      starred_gists_url                    = "https://api.github.com/gists/starred"
      starred_url                          = "https://api.github.com/user/starred{/owner}{/repo}"
      topic_search_url                     = "https://api.github.com/search/topics?q={query}{&page,per_page}"
      user_organizations_url               = "https://api.github.com/user/orgs"
      user_repositories_url                = "https://api.github.com/users/{user}/repos{?type,page,per_page,sort}"
      user_search_url                      = "https://api.github.com/search/users?q={query}{&page,per_page,sort,order}"
      user_url                             = "https://api.github.com/users/{user}"
    }
  }
}

# GET /emojis
tool "emojis_get" {
  description = "Get emojis. Lists all the emojis available to use on GitHub."
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  http {
    method = "GET"
    url    = "${env("GITHUB_BASE_URL", "https://api.github.com")}/emojis"
    headers = {
      Accept = "application/json"
    }
  }
}

# GET /meta
tool "meta_get" {
  description = "Get GitHub meta information. Returns meta information about GitHub, including a list of GitHub's IP addresses. For more information, see \"About GitHub's IP addresses.\""
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  http {
    method = "GET"
    url    = "${env("GITHUB_BASE_URL", "https://api.github.com")}/meta"
    headers = {
      Accept = "application/json"
    }
  }
  result {
    field "actions" {
      path     = "actions"
      type     = list(string)
      optional = true
    }
    field "actions_macos" {
      path     = "actions_macos"
      type     = list(string)
      optional = true
    }
    field "api" {
      path     = "api"
      type     = list(string)
      optional = true
    }
    field "codespaces" {
      path     = "codespaces"
      type     = list(string)
      optional = true
    }
    field "commit_signing_keys" {
      path     = "commit_signing_keys"
      type     = list(string)
      optional = true
    }
    field "copilot" {
      path     = "copilot"
      type     = list(string)
      optional = true
    }
    field "dependabot" {
      path     = "dependabot"
      type     = list(string)
      optional = true
    }
    field "domains" {
      path     = "domains"
      type     = object({ actions = optional(list(string)), actions_inbound = optional(object({ full_domains = optional(list(string)), wildcard_domains = optional(list(string)) })), artifact_attestations = optional(object({ services = optional(list(string)), trust_domain = optional(string) })), codespaces = optional(list(string)), copilot = optional(list(string)), packages = optional(list(string)), storage = optional(list(string)), website = optional(list(string)) })
      optional = true
    }
    field "git" {
      path     = "git"
      type     = list(string)
      optional = true
    }
    field "github_enterprise_importer" {
      path     = "github_enterprise_importer"
      type     = list(string)
      optional = true
    }
    field "hooks" {
      path     = "hooks"
      type     = list(string)
      optional = true
    }
    field "importer" {
      path     = "importer"
      type     = list(string)
      optional = true
    }
    field "packages" {
      path     = "packages"
      type     = list(string)
      optional = true
    }
    field "pages" {
      path     = "pages"
      type     = list(string)
      optional = true
    }
    field "ssh_key_fingerprints" {
      path     = "ssh_key_fingerprints"
      type     = object({ SHA256_DSA = optional(string), SHA256_ECDSA = optional(string), SHA256_ED25519 = optional(string), SHA256_RSA = optional(string) })
      optional = true
    }
    field "ssh_keys" {
      path     = "ssh_keys"
      type     = list(string)
      optional = true
    }
    field "verifiable_password_authentication" {
      path = "verifiable_password_authentication"
      type = bool
    }
    field "web" {
      path     = "web"
      type     = list(string)
      optional = true
    }
  }
}

# GET /octocat
tool "meta_get_octocat" {
  description = "Get Octocat. Get the octocat as ASCII art"
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  param "s" {
    type        = string
    description = "The words to show in Octocat's speech bubble"
    required    = false
  }
  http {
    method = "GET"
    url    = "${env("GITHUB_BASE_URL", "https://api.github.com")}/octocat"
    query = {
      s = param.s
    }
  }
}

# DELETE /repos/{owner}/{repo}
tool "repos_delete" {
  description = "Delete a repository. Deleting a repository requires admin access."
  annotations {
    destructive_hint = true
    idempotent_hint  = true
    open_world_hint  = true
  }
  confirm = "DELETE /repos/${param.owner}/${param.repo}: go ahead?"
  param "owner" {
    type        = string
    description = "The account owner of the repository. The name is not case sensitive."
  }
  param "repo" {
    type        = string
    description = "The name of the repository without the `.git` extension. The name is not case sensitive."
  }
  http {
    method = "DELETE"
    url    = "${env("GITHUB_BASE_URL", "https://api.github.com")}/repos/${param.owner}/${param.repo}"
  }
}

# GET /repos/{owner}/{repo}/issues
tool "issues_list_for_repo" {
  description = "List repository issues. List issues in a repository. Only open issues will be listed."
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  param "owner" {
    type        = string
    description = "The account owner of the repository. The name is not case sensitive."
  }
  param "repo" {
    type        = string
    description = "The name of the repository without the `.git` extension. The name is not case sensitive."
  }
  param "milestone" {
    type        = string
    description = "If an `integer` is passed, it should refer to a milestone by its `number` field. If the string `*` is passed, issues with any milestone are accepted. If the string `none` is passed, issues without milestones are returned."
    required    = false
  }
  param "state" {
    type        = string
    description = "Indicates the state of the issues to return."
    enum        = ["open", "closed", "all"]
    default     = "open"
  }
  param "assignee" {
    type        = string
    description = "Can be the name of a user. Pass in `none` for issues with no assigned user, and `*` for issues assigned to any user."
    required    = false
  }
  param "type" {
    type        = string
    description = "Can be the name of an issue type. If the string `*` is passed, issues with any type are accepted. If the string `none` is passed, issues without type are returned."
    required    = false
  }
  param "creator" {
    type        = string
    description = "The user that created the issue."
    required    = false
  }
  param "mentioned" {
    type        = string
    description = "A user that's mentioned in the issue."
    required    = false
  }
  param "issue_field_values" {
    type        = string
    description = "A comma-separated list of issue field filters in `field_slug:value` format. Only issues matching all specified field values are returned. Requires issue fields to be enabled for the repository."
    required    = false
  }
  param "labels" {
    type        = string
    description = "A list of comma separated label names. Example: `bug,ui,@high`"
    required    = false
  }
  param "sort" {
    type        = string
    description = "What to sort results by."
    enum        = ["created", "updated", "comments"]
    default     = "created"
  }
  param "direction" {
    type        = string
    description = "The direction to sort the results by."
    enum        = ["asc", "desc"]
    default     = "desc"
  }
  param "since" {
    type        = string
    description = "Only show results that were last updated after the given time. This is a timestamp in ISO 8601 format: `YYYY-MM-DDTHH:MM:SSZ`."
    required    = false
  }
  param "per_page" {
    type        = integer
    description = "The number of results per page (max 100). For more information, see \"Using pagination in the REST API.\""
    default     = 30
  }
  param "page" {
    type        = integer
    description = "The page number of the results to fetch. For more information, see \"Using pagination in the REST API.\""
    default     = 1
  }
  http {
    method = "GET"
    url    = "${env("GITHUB_BASE_URL", "https://api.github.com")}/repos/${param.owner}/${param.repo}/issues"
    query = {
      milestone          = param.milestone
      state              = param.state
      assignee           = param.assignee
      type               = param.type
      creator            = param.creator
      mentioned          = param.mentioned
      issue_field_values = param.issue_field_values
      labels             = param.labels
      sort               = param.sort
      direction          = param.direction
      since              = param.since
      per_page           = param.per_page
      page               = param.page
    }
    headers = {
      Accept = "application/json"
    }
  }
  result {
    field "items" {
      path = "@this"
      type = list(object({ active_lock_reason = optional(string), assignee = optional(object({ avatar_url = string, email = optional(string), events_url = string, followers_url = string, following_url = string, gists_url = string, gravatar_id = optional(string), html_url = string, id = integer, login = string, name = optional(string), node_id = string, organizations_url = string, received_events_url = string, repos_url = string, site_admin = bool, starred_at = optional(string), starred_url = string, subscriptions_url = string, type = string, url = string, user_view_type = optional(string) })), assignees = optional(list(any)), author_association = optional(string), body = optional(string), body_html = optional(string), body_text = optional(string), closed_at = optional(string), closed_by = optional(object({ avatar_url = string, email = optional(string), events_url = string, followers_url = string, following_url = string, gists_url = string, gravatar_id = optional(string), html_url = string, id = integer, login = string, name = optional(string), node_id = string, organizations_url = string, received_events_url = string, repos_url = string, site_admin = bool, starred_at = optional(string), starred_url = string, subscriptions_url = string, type = string, url = string, user_view_type = optional(string) })), comments = integer, comments_url = string, created_at = string, draft = optional(bool), events_url = string, html_url = string, id = integer, issue_dependencies_summary = optional(object({ blocked_by = integer, blocking = integer, total_blocked_by = integer, total_blocking = integer })), issue_field_values = optional(list(any)), labels = list(any), labels_url = string, locked = bool, milestone = optional(object({ closed_at = optional(string), closed_issues = integer, created_at = string, creator = optional(any), description = optional(string), due_on = optional(string), html_url = string, id = integer, labels_url = string, node_id = string, number = integer, open_issues = integer, state = string, title = string, updated_at = string, url = string })), node_id = string, number = integer, parent_issue_url = optional(string), performed_via_github_app = optional(object({ client_id = optional(string), created_at = string, description = optional(string), events = list(string), external_url = string, html_url = string, id = integer, installations_count = optional(integer), name = string, node_id = string, owner = any, permissions = any, slug = optional(string), updated_at = string })), pinned_comment = optional(object({ author_association = optional(string), body = optional(string), body_html = optional(string), body_text = optional(string), created_at = string, html_url = string, id = integer, issue_url = string, minimized = optional(any), node_id = string, performed_via_github_app = optional(any), pin = optional(any), reactions = optional(any), updated_at = string, url = string, user = optional(any) })), pull_request = optional(object({ diff_url = optional(string), html_url = optional(string), merged_at = optional(string), patch_url = optional(string), url = optional(string) })), reactions = optional(any), repository = optional(object({ allow_auto_merge = optional(bool), allow_forking = optional(bool), allow_merge_commit = optional(bool), allow_rebase_merge = optional(bool), allow_squash_merge = optional(bool), allow_update_branch = optional(bool), anonymous_access_enabled = optional(bool), archive_url = string, archived = bool, assignees_url = string, blobs_url = string, branches_url = string, clone_url = string, code_search_index_status = optional(any), collaborators_url = string, comments_url = string, commits_url = string, compare_url = string, contents_url = string, contributors_url = string, created_at = optional(string), default_branch = string, delete_branch_on_merge = optional(bool), deployments_url = string, description = optional(string), disabled = bool, downloads_url = string, events_url = string, fork = bool, forks = integer, forks_count = integer, forks_url = string, full_name = string, git_commits_url = string, git_refs_url = string, git_tags_url = string, git_url = string, has_discussions = optional(bool), has_downloads = bool, has_issues = bool, has_pages = bool, has_projects = bool, has_pull_requests = optional(bool), has_wiki = bool, homepage = optional(string), hooks_url = string, html_url = string, id = integer, is_template = optional(bool), issue_comment_url = string, issue_events_url = string, issues_url = string, keys_url = string, labels_url = string, language = optional(string), languages_url = string, license = optional(any), master_branch = optional(string), merge_commit_message = optional(string), merge_commit_title = optional(string), merges_url = string, milestones_url = string, mirror_url = optional(string), name = string, node_id = string, notifications_url = string, open_issues = integer, open_issues_count = integer, owner = any, permissions = optional(any), private = bool, pull_request_creation_policy = optional(string), pulls_url = string, pushed_at = optional(string), releases_url = string, size = integer, squash_merge_commit_message = optional(string), squash_merge_commit_title = optional(string), ssh_url = string, stargazers_count = integer, stargazers_url = string, starred_at = optional(string), statuses_url = string, subscribers_url = string, subscription_url = string, svn_url = string, tags_url = string, teams_url = string, temp_clone_token = optional(string), topics = optional(list(string)), trees_url = string, updated_at = optional(string), url = string, use_squash_pr_title_as_default = optional(bool), visibility = optional(string), watchers = integer, watchers_count = integer, web_commit_signoff_required = optional(bool) })), repository_url = string, state = string, state_reason = optional(string), sub_issues_summary = optional(object({ completed = integer, percent_completed = integer, total = integer })), timeline_url = optional(string), title = string, type = optional(object({ color = optional(string), created_at = optional(string), description = optional(string), id = integer, is_enabled = optional(bool), name = string, node_id = string, updated_at = optional(string) })), updated_at = string, url = string, user = optional(object({ avatar_url = string, email = optional(string), events_url = string, followers_url = string, following_url = string, gists_url = string, gravatar_id = optional(string), html_url = string, id = integer, login = string, name = optional(string), node_id = string, organizations_url = string, received_events_url = string, repos_url = string, site_admin = bool, starred_at = optional(string), starred_url = string, subscriptions_url = string, type = string, url = string, user_view_type = optional(string) })) }))
    }
  }
}

# POST /repos/{owner}/{repo}/issues
tool "issues_create" {
  description = "Create an issue. Any user with pull access to a repository can create an issue. If issues are disabled in the repository, the API returns a `410 Gone` status."
  annotations {
    destructive_hint = false
    open_world_hint  = true
  }
  input_schema = {
    type = "object"
    properties = {
      owner = {
        description = "The account owner of the repository. The name is not case sensitive."
        type        = "string"
      }
      repo = {
        description = "The name of the repository without the `.git` extension. The name is not case sensitive."
        type        = "string"
      }
      assignee = {
        type        = ["string", "null"]
        description = "Login for the user that this issue should be assigned to. _NOTE: Only users with push access can set the assignee for new issues. The assignee is silently dropped otherwise."
      }
      assignees = {
        type        = "array"
        description = "Logins for Users to assign to this issue. _NOTE: Only users with push access can set assignees for new issues. Assignees are silently dropped otherwise._"
        items = {
          type = "string"
        }
      }
      body = {
        type        = "string"
        description = "The contents of the issue."
      }
      issue_field_values = {
        type        = "array"
        description = "An array of issue field values to set on this issue. Each field value must include the field ID and the value to set."
        items = {
          type = "object"
          properties = {
            field_id = {
              type        = "integer"
              description = "The ID of the issue field to set"
            }
            value = {
              description = "The value to set for the field. For multi-select fields, provide an array of option names."
              oneOf = [
                {
                  type = "string"
                },
                {
                  type = "number"
                },
                {
                  type = "array"
                  items = {
                    type = "string"
                  }
                },
              ]
            }
          }
          required             = ["field_id", "value"]
          additionalProperties = false
        }
      }
      labels = {
        type        = "array"
        description = "Labels to associate with this issue. _NOTE: Only users with push access can set labels for new issues. Labels are silently dropped otherwise._"
        items = {
          oneOf = [
            {
              type = "string"
            },
            {
              type = "object"
              properties = {
                color = {
                  type = ["string", "null"]
                }
                description = {
                  type = ["string", "null"]
                }
                id = {
                  type = "integer"
                }
                name = {
                  type = "string"
                }
              }
            },
          ]
        }
      }
      milestone = {
        oneOf = [
          {
            type = "string"
          },
          {
            type        = "integer"
            description = "The `number` of the milestone to associate this issue with. _NOTE: Only users with push access can set the milestone for new issues. The milestone is silently dropped otherwise._"
          },
        ]
      }
      title = {
        description = "The title of the issue."
        oneOf = [
          {
            type = "string"
          },
          {
            type = "integer"
          },
        ]
      }
      type = {
        type        = ["string", "null"]
        description = "The name of the issue type to associate with this issue. _NOTE: Only users with push access can set the type for new issues. The type is silently dropped otherwise._"
      }
    }
    required             = ["owner", "repo", "title"]
    additionalProperties = false
  }
  http {
    method = "POST"
    url    = "${env("GITHUB_BASE_URL", "https://api.github.com")}/repos/${param.owner}/${param.repo}/issues"
    headers = {
      Accept = "application/json"
    }
    body = jsonencode({ for k, v in {
      assignee           = param.assignee
      assignees          = param.assignees
      body               = param.body
      issue_field_values = param.issue_field_values
      labels             = param.labels
      milestone          = param.milestone
      title              = param.title
      type               = param.type
    } : k => v if v != null })
    content_type = "application/json"
  }
  result {
    field "active_lock_reason" {
      path     = "active_lock_reason"
      type     = string
      optional = true
    }
    field "assignee" {
      path        = "assignee"
      type        = object({ avatar_url = string, email = optional(string), events_url = string, followers_url = string, following_url = string, gists_url = string, gravatar_id = optional(string), html_url = string, id = integer, login = string, name = optional(string), node_id = string, organizations_url = string, received_events_url = string, repos_url = string, site_admin = bool, starred_at = optional(string), starred_url = string, subscriptions_url = string, type = string, url = string, user_view_type = optional(string) })
      description = "A GitHub user."
      optional    = true
    }
    field "assignees" {
      path     = "assignees"
      type     = list(object({ avatar_url = string, email = optional(string), events_url = string, followers_url = string, following_url = string, gists_url = string, gravatar_id = optional(string), html_url = string, id = integer, login = string, name = optional(string), node_id = string, organizations_url = string, received_events_url = string, repos_url = string, site_admin = bool, starred_at = optional(string), starred_url = string, subscriptions_url = string, type = string, url = string, user_view_type = optional(string) }))
      optional = true
    }
    field "author_association" {
      path        = "author_association"
      type        = string
      description = "How the author is associated with the repository."
      optional    = true
    }
    field "body" {
      path        = "body"
      type        = string
      description = "Contents of the issue"
      optional    = true
    }
    field "body_html" {
      path     = "body_html"
      type     = string
      optional = true
    }
    field "body_text" {
      path     = "body_text"
      type     = string
      optional = true
    }
    field "closed_at" {
      path     = "closed_at"
      type     = string
      optional = true
    }
    field "closed_by" {
      path        = "closed_by"
      type        = object({ avatar_url = string, email = optional(string), events_url = string, followers_url = string, following_url = string, gists_url = string, gravatar_id = optional(string), html_url = string, id = integer, login = string, name = optional(string), node_id = string, organizations_url = string, received_events_url = string, repos_url = string, site_admin = bool, starred_at = optional(string), starred_url = string, subscriptions_url = string, type = string, url = string, user_view_type = optional(string) })
      description = "A GitHub user."
      optional    = true
    }
    field "comments" {
      path = "comments"
      type = integer
    }
    field "comments_url" {
      path = "comments_url"
      type = string
    }
    field "created_at" {
      path = "created_at"
      type = string
    }
    field "draft" {
      path     = "draft"
      type     = bool
      optional = true
    }
    field "events_url" {
      path = "events_url"
      type = string
    }
    field "html_url" {
      path = "html_url"
      type = string
    }
    field "id" {
      path = "id"
      type = integer
    }
    field "issue_dependencies_summary" {
      path     = "issue_dependencies_summary"
      type     = object({ blocked_by = integer, blocking = integer, total_blocked_by = integer, total_blocking = integer })
      optional = true
    }
    field "issue_field_values" {
      path     = "issue_field_values"
      type     = list(object({ data_type = string, issue_field_id = integer, issue_field_name = optional(string), multi_select_options = optional(list(any)), node_id = string, single_select_option = optional(any), value = optional(any) }))
      optional = true
    }
    field "labels" {
      path        = "labels"
      type        = list(any)
      description = "Labels to associate with this issue; pass one or more label names to replace the set of labels on this issue; send an empty array to clear all labels from the issue; note that the labels are silently…"
    }
    field "labels_url" {
      path = "labels_url"
      type = string
    }
    field "locked" {
      path = "locked"
      type = bool
    }
    field "milestone" {
      path        = "milestone"
      type        = object({ closed_at = optional(string), closed_issues = integer, created_at = string, creator = optional(object({ avatar_url = string, email = optional(string), events_url = string, followers_url = string, following_url = string, gists_url = string, gravatar_id = optional(string), html_url = string, id = integer, login = string, name = optional(string), node_id = string, organizations_url = string, received_events_url = string, repos_url = string, site_admin = bool, starred_at = optional(string), starred_url = string, subscriptions_url = string, type = string, url = string, user_view_type = optional(string) })), description = optional(string), due_on = optional(string), html_url = string, id = integer, labels_url = string, node_id = string, number = integer, open_issues = integer, state = string, title = string, updated_at = string, url = string })
      description = "A collection of related issues and pull requests."
      optional    = true
    }
    field "node_id" {
      path = "node_id"
      type = string
    }
    field "number" {
      path        = "number"
      type        = integer
      description = "Number uniquely identifying the issue within its repository"
    }
    field "parent_issue_url" {
      path        = "parent_issue_url"
      type        = string
      description = "URL to get the parent issue of this issue, if it is a sub-issue"
      optional    = true
    }
    field "performed_via_github_app" {
      path        = "performed_via_github_app"
      type        = object({ client_id = optional(string), created_at = string, description = optional(string), events = list(string), external_url = string, html_url = string, id = integer, installations_count = optional(integer), name = string, node_id = string, owner = any, permissions = object({ checks = optional(string), contents = optional(string), deployments = optional(string), issues = optional(string), metadata = optional(string) }), slug = optional(string), updated_at = string })
      description = "GitHub apps are a new way to extend GitHub. They can be installed directly on organizations and user accounts and granted access to specific repositories."
      optional    = true
    }
    field "pinned_comment" {
      path        = "pinned_comment"
      type        = object({ author_association = optional(string), body = optional(string), body_html = optional(string), body_text = optional(string), created_at = string, html_url = string, id = integer, issue_url = string, minimized = optional(object({ reason = optional(string) })), node_id = string, performed_via_github_app = optional(object({ client_id = optional(string), created_at = string, description = optional(string), events = list(string), external_url = string, html_url = string, id = integer, installations_count = optional(integer), name = string, node_id = string, owner = any, permissions = any, slug = optional(string), updated_at = string })), pin = optional(object({ pinned_at = string, pinned_by = optional(any) })), reactions = optional(any), updated_at = string, url = string, user = optional(object({ avatar_url = string, email = optional(string), events_url = string, followers_url = string, following_url = string, gists_url = string, gravatar_id = optional(string), html_url = string, id = integer, login = string, name = optional(string), node_id = string, organizations_url = string, received_events_url = string, repos_url = string, site_admin = bool, starred_at = optional(string), starred_url = string, subscriptions_url = string, type = string, url = string, user_view_type = optional(string) })) })
      description = "Comments provide a way for people to collaborate on an issue."
      optional    = true
    }
    field "pull_request" {
      path     = "pull_request"
      type     = object({ diff_url = optional(string), html_url = optional(string), merged_at = optional(string), patch_url = optional(string), url = optional(string) })
      optional = true
    }
    field "reactions" {
      path     = "reactions"
      type     = any
      optional = true
    }
    field "repository" {
      path        = "repository"
      type        = object({ allow_auto_merge = optional(bool), allow_forking = optional(bool), allow_merge_commit = optional(bool), allow_rebase_merge = optional(bool), allow_squash_merge = optional(bool), allow_update_branch = optional(bool), anonymous_access_enabled = optional(bool), archive_url = string, archived = bool, assignees_url = string, blobs_url = string, branches_url = string, clone_url = string, code_search_index_status = optional(object({ lexical_commit_sha = optional(string), lexical_search_ok = optional(bool) })), collaborators_url = string, comments_url = string, commits_url = string, compare_url = string, contents_url = string, contributors_url = string, created_at = optional(string), default_branch = string, delete_branch_on_merge = optional(bool), deployments_url = string, description = optional(string), disabled = bool, downloads_url = string, events_url = string, fork = bool, forks = integer, forks_count = integer, forks_url = string, full_name = string, git_commits_url = string, git_refs_url = string, git_tags_url = string, git_url = string, has_discussions = optional(bool), has_downloads = bool, has_issues = bool, has_pages = bool, has_projects = bool, has_pull_requests = optional(bool), has_wiki = bool, homepage = optional(string), hooks_url = string, html_url = string, id = integer, is_template = optional(bool), issue_comment_url = string, issue_events_url = string, issues_url = string, keys_url = string, labels_url = string, language = optional(string), languages_url = string, license = optional(object({ html_url = optional(string), key = string, name = string, node_id = string, spdx_id = optional(string), url = optional(string) })), master_branch = optional(string), merge_commit_message = optional(string), merge_commit_title = optional(string), merges_url = string, milestones_url = string, mirror_url = optional(string), name = string, node_id = string, notifications_url = string, open_issues = integer, open_issues_count = integer, owner = object({ avatar_url = string, email = optional(string), events_url = string, followers_url = string, following_url = string, gists_url = string, gravatar_id = optional(string), html_url = string, id = integer, login = string, name = optional(string), node_id = string, organizations_url = string, received_events_url = string, repos_url = string, site_admin = bool, starred_at = optional(string), starred_url = string, subscriptions_url = string, type = string, url = string, user_view_type = optional(string) }), permissions = optional(object({ admin = bool, maintain = optional(bool), pull = bool, push = bool, triage = optional(bool) })), private = bool, pull_request_creation_policy = optional(string), pulls_url = string, pushed_at = optional(string), releases_url = string, size = integer, squash_merge_commit_message = optional(string), squash_merge_commit_title = optional(string), ssh_url = string, stargazers_count = integer, stargazers_url = string, starred_at = optional(string), statuses_url = string, subscribers_url = string, subscription_url = string, svn_url = string, tags_url = string, teams_url = string, temp_clone_token = optional(string), topics = optional(list(string)), trees_url = string, updated_at = optional(string), url = string, use_squash_pr_title_as_default = optional(bool), visibility = optional(string), watchers = integer, watchers_count = integer, web_commit_signoff_required = optional(bool) })
      description = "A repository on GitHub."
      optional    = true
    }
    field "repository_url" {
      path = "repository_url"
      type = string
    }
    field "state" {
      path        = "state"
      type        = string
      description = "State of the issue; either 'open' or 'closed'"
    }
    field "state_reason" {
      path        = "state_reason"
      type        = string
      description = "The reason for the current state"
      optional    = true
    }
    field "sub_issues_summary" {
      path     = "sub_issues_summary"
      type     = object({ completed = integer, percent_completed = integer, total = integer })
      optional = true
    }
    field "timeline_url" {
      path     = "timeline_url"
      type     = string
      optional = true
    }
    field "title" {
      path        = "title"
      type        = string
      description = "Title of the issue"
    }
    field "type" {
      path        = "type"
      type        = object({ color = optional(string), created_at = optional(string), description = optional(string), id = integer, is_enabled = optional(bool), name = string, node_id = string, updated_at = optional(string) })
      description = "The type assigned to the issue. This is only present for issues in repositories where issue types are supported."
      optional    = true
    }
    field "updated_at" {
      path = "updated_at"
      type = string
    }
    field "url" {
      path        = "url"
      type        = string
      description = "URL for the issue"
    }
    field "user" {
      path        = "user"
      type        = object({ avatar_url = string, email = optional(string), events_url = string, followers_url = string, following_url = string, gists_url = string, gravatar_id = optional(string), html_url = string, id = integer, login = string, name = optional(string), node_id = string, organizations_url = string, received_events_url = string, repos_url = string, site_admin = bool, starred_at = optional(string), starred_url = string, subscriptions_url = string, type = string, url = string, user_view_type = optional(string) })
      description = "A GitHub user."
      optional    = true
    }
  }
}

# GET /repos/{owner}/{repo}/issues/{issue_number}
tool "issues_get" {
  description = "Get an issue. The API returns a `301 Moved Permanently` status if the issue was transferred to another repository. If the issue was transferred to or deleted from a repository where the authenticated user lacks read access, the API returns a `404 Not Found` status. If the issue was deleted from a repository where the authenticated user has read access, the API returns a `410 Gone` status."
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  param "owner" {
    type        = string
    description = "The account owner of the repository. The name is not case sensitive."
  }
  param "repo" {
    type        = string
    description = "The name of the repository without the `.git` extension. The name is not case sensitive."
  }
  param "issue_number" {
    type        = integer
    description = "The number that identifies the issue."
  }
  http {
    method = "GET"
    url    = "${env("GITHUB_BASE_URL", "https://api.github.com")}/repos/${param.owner}/${param.repo}/issues/${param.issue_number}"
    headers = {
      Accept = "application/json"
    }
  }
  result {
    field "active_lock_reason" {
      path     = "active_lock_reason"
      type     = string
      optional = true
    }
    field "assignee" {
      path        = "assignee"
      type        = object({ avatar_url = string, email = optional(string), events_url = string, followers_url = string, following_url = string, gists_url = string, gravatar_id = optional(string), html_url = string, id = integer, login = string, name = optional(string), node_id = string, organizations_url = string, received_events_url = string, repos_url = string, site_admin = bool, starred_at = optional(string), starred_url = string, subscriptions_url = string, type = string, url = string, user_view_type = optional(string) })
      description = "A GitHub user."
      optional    = true
    }
    field "assignees" {
      path     = "assignees"
      type     = list(object({ avatar_url = string, email = optional(string), events_url = string, followers_url = string, following_url = string, gists_url = string, gravatar_id = optional(string), html_url = string, id = integer, login = string, name = optional(string), node_id = string, organizations_url = string, received_events_url = string, repos_url = string, site_admin = bool, starred_at = optional(string), starred_url = string, subscriptions_url = string, type = string, url = string, user_view_type = optional(string) }))
      optional = true
    }
    field "author_association" {
      path        = "author_association"
      type        = string
      description = "How the author is associated with the repository."
      optional    = true
    }
    field "body" {
      path        = "body"
      type        = string
      description = "Contents of the issue"
      optional    = true
    }
    field "body_html" {
      path     = "body_html"
      type     = string
      optional = true
    }
    field "body_text" {
      path     = "body_text"
      type     = string
      optional = true
    }
    field "closed_at" {
      path     = "closed_at"
      type     = string
      optional = true
    }
    field "closed_by" {
      path        = "closed_by"
      type        = object({ avatar_url = string, email = optional(string), events_url = string, followers_url = string, following_url = string, gists_url = string, gravatar_id = optional(string), html_url = string, id = integer, login = string, name = optional(string), node_id = string, organizations_url = string, received_events_url = string, repos_url = string, site_admin = bool, starred_at = optional(string), starred_url = string, subscriptions_url = string, type = string, url = string, user_view_type = optional(string) })
      description = "A GitHub user."
      optional    = true
    }
    field "comments" {
      path = "comments"
      type = integer
    }
    field "comments_url" {
      path = "comments_url"
      type = string
    }
    field "created_at" {
      path = "created_at"
      type = string
    }
    field "draft" {
      path     = "draft"
      type     = bool
      optional = true
    }
    field "events_url" {
      path = "events_url"
      type = string
    }
    field "html_url" {
      path = "html_url"
      type = string
    }
    field "id" {
      path = "id"
      type = integer
    }
    field "issue_dependencies_summary" {
      path     = "issue_dependencies_summary"
      type     = object({ blocked_by = integer, blocking = integer, total_blocked_by = integer, total_blocking = integer })
      optional = true
    }
    field "issue_field_values" {
      path     = "issue_field_values"
      type     = list(object({ data_type = string, issue_field_id = integer, issue_field_name = optional(string), multi_select_options = optional(list(any)), node_id = string, single_select_option = optional(any), value = optional(any) }))
      optional = true
    }
    field "labels" {
      path        = "labels"
      type        = list(any)
      description = "Labels to associate with this issue; pass one or more label names to replace the set of labels on this issue; send an empty array to clear all labels from the issue; note that the labels are silently…"
    }
    field "labels_url" {
      path = "labels_url"
      type = string
    }
    field "locked" {
      path = "locked"
      type = bool
    }
    field "milestone" {
      path        = "milestone"
      type        = object({ closed_at = optional(string), closed_issues = integer, created_at = string, creator = optional(object({ avatar_url = string, email = optional(string), events_url = string, followers_url = string, following_url = string, gists_url = string, gravatar_id = optional(string), html_url = string, id = integer, login = string, name = optional(string), node_id = string, organizations_url = string, received_events_url = string, repos_url = string, site_admin = bool, starred_at = optional(string), starred_url = string, subscriptions_url = string, type = string, url = string, user_view_type = optional(string) })), description = optional(string), due_on = optional(string), html_url = string, id = integer, labels_url = string, node_id = string, number = integer, open_issues = integer, state = string, title = string, updated_at = string, url = string })
      description = "A collection of related issues and pull requests."
      optional    = true
    }
    field "node_id" {
      path = "node_id"
      type = string
    }
    field "number" {
      path        = "number"
      type        = integer
      description = "Number uniquely identifying the issue within its repository"
    }
    field "parent_issue_url" {
      path        = "parent_issue_url"
      type        = string
      description = "URL to get the parent issue of this issue, if it is a sub-issue"
      optional    = true
    }
    field "performed_via_github_app" {
      path        = "performed_via_github_app"
      type        = object({ client_id = optional(string), created_at = string, description = optional(string), events = list(string), external_url = string, html_url = string, id = integer, installations_count = optional(integer), name = string, node_id = string, owner = any, permissions = object({ checks = optional(string), contents = optional(string), deployments = optional(string), issues = optional(string), metadata = optional(string) }), slug = optional(string), updated_at = string })
      description = "GitHub apps are a new way to extend GitHub. They can be installed directly on organizations and user accounts and granted access to specific repositories."
      optional    = true
    }
    field "pinned_comment" {
      path        = "pinned_comment"
      type        = object({ author_association = optional(string), body = optional(string), body_html = optional(string), body_text = optional(string), created_at = string, html_url = string, id = integer, issue_url = string, minimized = optional(object({ reason = optional(string) })), node_id = string, performed_via_github_app = optional(object({ client_id = optional(string), created_at = string, description = optional(string), events = list(string), external_url = string, html_url = string, id = integer, installations_count = optional(integer), name = string, node_id = string, owner = any, permissions = any, slug = optional(string), updated_at = string })), pin = optional(object({ pinned_at = string, pinned_by = optional(any) })), reactions = optional(any), updated_at = string, url = string, user = optional(object({ avatar_url = string, email = optional(string), events_url = string, followers_url = string, following_url = string, gists_url = string, gravatar_id = optional(string), html_url = string, id = integer, login = string, name = optional(string), node_id = string, organizations_url = string, received_events_url = string, repos_url = string, site_admin = bool, starred_at = optional(string), starred_url = string, subscriptions_url = string, type = string, url = string, user_view_type = optional(string) })) })
      description = "Comments provide a way for people to collaborate on an issue."
      optional    = true
    }
    field "pull_request" {
      path     = "pull_request"
      type     = object({ diff_url = optional(string), html_url = optional(string), merged_at = optional(string), patch_url = optional(string), url = optional(string) })
      optional = true
    }
    field "reactions" {
      path     = "reactions"
      type     = any
      optional = true
    }
    field "repository" {
      path        = "repository"
      type        = object({ allow_auto_merge = optional(bool), allow_forking = optional(bool), allow_merge_commit = optional(bool), allow_rebase_merge = optional(bool), allow_squash_merge = optional(bool), allow_update_branch = optional(bool), anonymous_access_enabled = optional(bool), archive_url = string, archived = bool, assignees_url = string, blobs_url = string, branches_url = string, clone_url = string, code_search_index_status = optional(object({ lexical_commit_sha = optional(string), lexical_search_ok = optional(bool) })), collaborators_url = string, comments_url = string, commits_url = string, compare_url = string, contents_url = string, contributors_url = string, created_at = optional(string), default_branch = string, delete_branch_on_merge = optional(bool), deployments_url = string, description = optional(string), disabled = bool, downloads_url = string, events_url = string, fork = bool, forks = integer, forks_count = integer, forks_url = string, full_name = string, git_commits_url = string, git_refs_url = string, git_tags_url = string, git_url = string, has_discussions = optional(bool), has_downloads = bool, has_issues = bool, has_pages = bool, has_projects = bool, has_pull_requests = optional(bool), has_wiki = bool, homepage = optional(string), hooks_url = string, html_url = string, id = integer, is_template = optional(bool), issue_comment_url = string, issue_events_url = string, issues_url = string, keys_url = string, labels_url = string, language = optional(string), languages_url = string, license = optional(object({ html_url = optional(string), key = string, name = string, node_id = string, spdx_id = optional(string), url = optional(string) })), master_branch = optional(string), merge_commit_message = optional(string), merge_commit_title = optional(string), merges_url = string, milestones_url = string, mirror_url = optional(string), name = string, node_id = string, notifications_url = string, open_issues = integer, open_issues_count = integer, owner = object({ avatar_url = string, email = optional(string), events_url = string, followers_url = string, following_url = string, gists_url = string, gravatar_id = optional(string), html_url = string, id = integer, login = string, name = optional(string), node_id = string, organizations_url = string, received_events_url = string, repos_url = string, site_admin = bool, starred_at = optional(string), starred_url = string, subscriptions_url = string, type = string, url = string, user_view_type = optional(string) }), permissions = optional(object({ admin = bool, maintain = optional(bool), pull = bool, push = bool, triage = optional(bool) })), private = bool, pull_request_creation_policy = optional(string), pulls_url = string, pushed_at = optional(string), releases_url = string, size = integer, squash_merge_commit_message = optional(string), squash_merge_commit_title = optional(string), ssh_url = string, stargazers_count = integer, stargazers_url = string, starred_at = optional(string), statuses_url = string, subscribers_url = string, subscription_url = string, svn_url = string, tags_url = string, teams_url = string, temp_clone_token = optional(string), topics = optional(list(string)), trees_url = string, updated_at = optional(string), url = string, use_squash_pr_title_as_default = optional(bool), visibility = optional(string), watchers = integer, watchers_count = integer, web_commit_signoff_required = optional(bool) })
      description = "A repository on GitHub."
      optional    = true
    }
    field "repository_url" {
      path = "repository_url"
      type = string
    }
    field "state" {
      path        = "state"
      type        = string
      description = "State of the issue; either 'open' or 'closed'"
    }
    field "state_reason" {
      path        = "state_reason"
      type        = string
      description = "The reason for the current state"
      optional    = true
    }
    field "sub_issues_summary" {
      path     = "sub_issues_summary"
      type     = object({ completed = integer, percent_completed = integer, total = integer })
      optional = true
    }
    field "timeline_url" {
      path     = "timeline_url"
      type     = string
      optional = true
    }
    field "title" {
      path        = "title"
      type        = string
      description = "Title of the issue"
    }
    field "type" {
      path        = "type"
      type        = object({ color = optional(string), created_at = optional(string), description = optional(string), id = integer, is_enabled = optional(bool), name = string, node_id = string, updated_at = optional(string) })
      description = "The type assigned to the issue. This is only present for issues in repositories where issue types are supported."
      optional    = true
    }
    field "updated_at" {
      path = "updated_at"
      type = string
    }
    field "url" {
      path        = "url"
      type        = string
      description = "URL for the issue"
    }
    field "user" {
      path        = "user"
      type        = object({ avatar_url = string, email = optional(string), events_url = string, followers_url = string, following_url = string, gists_url = string, gravatar_id = optional(string), html_url = string, id = integer, login = string, name = optional(string), node_id = string, organizations_url = string, received_events_url = string, repos_url = string, site_admin = bool, starred_at = optional(string), starred_url = string, subscriptions_url = string, type = string, url = string, user_view_type = optional(string) })
      description = "A GitHub user."
      optional    = true
    }
  }
}

# GET /versions
tool "meta_get_all_versions" {
  description = "Get all API versions. Get all supported GitHub API versions."
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  http {
    method = "GET"
    url    = "${env("GITHUB_BASE_URL", "https://api.github.com")}/versions"
    headers = {
      Accept = "application/json"
    }
  }
  result {
    field "items" {
      path = "@this"
      type = list(string)
    }
  }
  example "from the document" {
    response = "[\"2021-01-01\",\"2021-06-01\",\"2022-01-01\"]"
    result = {
      items = ["2021-01-01", "2021-06-01", "2022-01-01"]
    }
  }
}

# GET /zen
tool "meta_get_zen" {
  description = "Get the Zen of GitHub. Get a random sentence from the Zen of GitHub"
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  http {
    method = "GET"
    url    = "${env("GITHUB_BASE_URL", "https://api.github.com")}/zen"
  }
}
