// Package all links every tool backend into a program: importing it for
// its side effects registers each backend's kind with adapters.Register.
// A new backend is one package under adapters/ and one import line here.
package all

import (
	_ "github.com/toolhost/toolhost/adapters/exec"     // exec: argv commands
	_ "github.com/toolhost/toolhost/adapters/http"     // http: requests to an upstream
	_ "github.com/toolhost/toolhost/adapters/sql"      // sql: statements on a source (sqlite, postgres, mysql)
	_ "github.com/toolhost/toolhost/adapters/template" // template: text rendered from the arguments
)
