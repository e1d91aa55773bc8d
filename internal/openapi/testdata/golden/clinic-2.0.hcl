# Tools for Pet Clinic 2.1, made by toolhost import openapi from clinic-2.0.yaml (OpenAPI 3.0.3).
# 6 tools of the document's 7 operations.
# Review them before serving: keep the tools a model needs, sharpen their
# descriptions, and run toolhost validate.
# Base URL: PET_CLINIC_BASE_URL, by default https://clinic.example.com/api.
# Credentials come from the environment, never from this file: PET_CLINIC_X_API_KEY, PET_CLINIC_USERNAME, PET_CLINIC_PASSWORD.
#
# Left out:
# - bookVisit (POST /visits): it needs a request body of type application/x-www-form-urlencoded (only JSON bodies are imported; multipart and form bodies need a hand-written body)

# POST /notes
# Left out: a request body of type application/x-www-form-urlencoded (only JSON bodies are imported; multipart and form bodies need a hand-written body).
tool "add_note" {
  description = "Add a note (formData is a form, whatever the document consumes)."
  annotations {
    destructive_hint = false
    open_world_hint  = true
  }
  http {
    method = "POST"
    url    = "${env("PET_CLINIC_BASE_URL", "https://clinic.example.com/api")}/notes"
    headers = {
      "X-Api-Key" = sensitive(env("PET_CLINIC_X_API_KEY"))
    }
  }
}

# GET /owners
tool "list_owners" {
  description = "List owners."
  annotations {
    read_only_hint  = true
    open_world_hint = true
  }
  param "names" {
    type     = list(string)
    required = false
  }
  param "tags" {
    type     = list(string)
    required = false
  }
  param "kinds" {
    type     = list(string)
    required = false
  }
  param "limit" {
    type    = integer
    minimum = 1
    maximum = 100
    default = 20
  }
  param "score" {
    type     = number
    minimum  = 0.5
    required = false
  }
  http {
    method = "GET"
    url    = "${env("PET_CLINIC_BASE_URL", "https://clinic.example.com/api")}/owners"
    query = {
      names = param.names == null ? null : join(",", param.names)
      tags  = param.tags
      kinds = param.kinds == null ? null : join("|", param.kinds)
      limit = param.limit
      score = param.score
    }
    headers = {
      Accept      = "application/json"
      "X-Api-Key" = sensitive(env("PET_CLINIC_X_API_KEY"))
    }
  }
  result {
    field "items" {
      path = "@this"
      type = list(object({ id = optional(integer), name = string, pets = optional(list(any)) }))
    }
  }
}

# POST /owners
tool "add_owner" {
  description = "Add an owner."
  annotations {
    destructive_hint = false
    open_world_hint  = true
  }
  input_schema = {
    type = "object"
    properties = {
      name = {
        type      = "string"
        minLength = 1
      }
      pets = {
        type = "array"
        items = {
          type = "object"
          properties = {
            kind = {
              type = "string"
              enum = ["cat", "dog"]
            }
            name = {
              type = "string"
            }
          }
        }
      }
    }
    required             = ["name"]
    additionalProperties = false
  }
  http {
    method = "POST"
    url    = "${env("PET_CLINIC_BASE_URL", "https://clinic.example.com/api")}/owners"
    headers = {
      Accept      = "application/json"
      "X-Api-Key" = sensitive(env("PET_CLINIC_X_API_KEY"))
    }
    body = jsonencode({ for k, v in {
      name = param.name
      pets = param.pets
    } : k => v if v != null })
    content_type = "application/json"
  }
  result {
    field "id" {
      path     = "id"
      type     = integer
      optional = true
    }
    field "name" {
      path = "name"
      type = string
    }
    field "pets" {
      path     = "pets"
      type     = list(object({ kind = optional(string), name = optional(string) }))
      optional = true
    }
  }
}

# PUT /owners/{ownerId}
tool "replace_owner" {
  description = "Replace an owner."
  annotations {
    destructive_hint = false
    idempotent_hint  = true
    open_world_hint  = true
  }
  input_schema = {
    type = "object"
    properties = {
      owner_id = {
        type   = "integer"
        format = "int64"
      }
      name = {
        type      = "string"
        minLength = 1
      }
      pets = {
        type = "array"
        items = {
          type = "object"
          properties = {
            kind = {
              type = "string"
              enum = ["cat", "dog"]
            }
            name = {
              type = "string"
            }
          }
        }
      }
    }
    required             = ["owner_id", "name"]
    additionalProperties = false
  }
  http {
    method = "PUT"
    url    = "${env("PET_CLINIC_BASE_URL", "https://clinic.example.com/api")}/owners/${param.owner_id}"
    headers = {
      Accept        = "application/json"
      Authorization = sensitive("Basic ${base64encode("${env("PET_CLINIC_USERNAME")}:${env("PET_CLINIC_PASSWORD")}")}")
    }
    body = jsonencode({ for k, v in {
      name = param.name
      pets = param.pets
    } : k => v if v != null })
    content_type = "application/json"
  }
  result {
    field "id" {
      path     = "id"
      type     = integer
      optional = true
    }
    field "name" {
      path = "name"
      type = string
    }
    field "pets" {
      path     = "pets"
      type     = list(object({ kind = optional(string), name = optional(string) }))
      optional = true
    }
  }
}

# DELETE /owners/{ownerId}
tool "delete_owner" {
  description = "Delete an owner."
  annotations {
    destructive_hint = true
    idempotent_hint  = true
    open_world_hint  = true
  }
  confirm = "DELETE /owners/${param.owner_id}: go ahead?"
  param "owner_id" {
    type = integer
  }
  param "reason" {
    type     = string
    required = false
  }
  http {
    method = "DELETE"
    url    = "${env("PET_CLINIC_BASE_URL", "https://clinic.example.com/api")}/owners/${param.owner_id}"
    headers = {
      "X-Api-Key" = sensitive(env("PET_CLINIC_X_API_KEY"))
    }
    body = jsonencode({ for k, v in {
      reason = param.reason
    } : k => v if v != null })
    content_type = "application/json"
  }
}

# POST /owners/{ownerId}/photo
# Left out: a request body of type multipart/form-data (only JSON bodies are imported; multipart and form bodies need a hand-written body).
tool "upload_photo" {
  description = "Upload a photo of an owner."
  annotations {
    destructive_hint = false
    open_world_hint  = true
  }
  param "owner_id" {
    type = integer
  }
  http {
    method = "POST"
    url    = "${env("PET_CLINIC_BASE_URL", "https://clinic.example.com/api")}/owners/${param.owner_id}/photo"
    headers = {
      "X-Api-Key" = sensitive(env("PET_CLINIC_X_API_KEY"))
    }
  }
}
