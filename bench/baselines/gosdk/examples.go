package main

// With -examples the baseline serves, written by hand on the Go SDK, the
// MCP definitions of examples/tools.hcl: its server name, version and
// instructions, its 10 tools (the same names, titles, descriptions,
// annotations and input schemas, and an output schema where tools.hcl
// declares a result block), the resource q4_report, the resource template
// notes and the prompt summarize_hotlist with the completions of its
// argument. It is what the cold-start case compares `toolhost serve
// examples/tools.hcl` with, so that both sides do the same work.
//
// The schemas are inferred from the Go structs by mcp.AddTool's package
// (github.com/google/jsonschema-go), descriptions from the jsonschema struct
// tags; what a tag cannot say (defaults, enums, bounds, patterns) is set on
// the inferred schema, as the SDK's documentation suggests. The SDK
// validates arguments and applies the defaults before a handler runs.
//
// Run it in examples/: the files (reports/q4.md, notes/, workspace/) are
// relative to the working directory, as tools.hcl's are to its own folder.
// The http tools call $BENCH_UPSTREAM when it is set, else the base URL of
// tools.hcl ($HOTLIST_BASE_URL or https://api.vvhan.com, $WEATHER_BASE_URL
// or https://wttr.in).

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

const (
	reportURI    = "file:///reports/q4.md"
	reportFile   = "reports/q4.md"
	notesDir     = "notes"
	workspaceDir = "workspace"
	fileNameRe   = "^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$"
)

type hotlistIn struct {
	Limit int `json:"limit,omitempty" jsonschema:"How many topics to return."`
}

type topic struct {
	Title string  `json:"title"`
	Hot   string  `json:"hot"`
	URL   string  `json:"url"`
	Index float64 `json:"index"`
}

type hotlistOut struct {
	UpdatedAt string  `json:"updated_at" jsonschema:"When the list was last updated."`
	Topics    []topic `json:"topics"`
}

type timeIn struct {
	Format string `json:"format,omitempty"`
}

type createFileIn struct {
	Filename string `json:"filename" jsonschema:"File name, such as notes.txt (letters, digits, '.', '_' and '-'; no folders)."`
	Content  string `json:"content" jsonschema:"The file's content."`
}

type weatherIn struct {
	City string `json:"city" jsonschema:"City name, such as 北京 or London."`
	Unit string `json:"unit,omitempty"`
}

type weatherOut struct {
	City        string  `json:"city,omitempty"`
	Temperature float64 `json:"temperature" jsonschema:"Temperature in the requested unit."`
	Conditions  string  `json:"conditions"`
	Humidity    int     `json:"humidity" jsonschema:"Relative humidity in percent."`
}

type cityIn struct {
	City string `json:"city" jsonschema:"City name, such as 北京 or London."`
}

type countIn struct {
	Delay float64 `json:"delay,omitempty" jsonschema:"Seconds to wait per file (to watch the progress)."`
}

type noIn struct{}

type deleteFileIn struct {
	Filename string `json:"filename" jsonschema:"File name in the workspace folder, such as notes.txt."`
}

// inputSchema is the schema mcp.AddTool would infer for In, with the
// constraints set that a jsonschema tag cannot express.
func inputSchema[In any](set func(props map[string]*jsonschema.Schema)) *jsonschema.Schema {
	s, err := jsonschema.For[In](nil)
	if err != nil {
		panic(err) // a mistake in a struct above
	}
	set(s.Properties)
	return s
}

// examplesServer is examples/tools.hcl written by hand on the Go SDK. It is
// long because it is that file's tools, one AddTool after another, as a
// user would write them; splitting it would hide the comparison.
func examplesServer() *mcp.Server {
	hotlistBase := cmp.Or(os.Getenv("BENCH_UPSTREAM"), os.Getenv("HOTLIST_BASE_URL"), "https://api.vvhan.com")
	weatherBase := cmp.Or(os.Getenv("BENCH_UPSTREAM"), os.Getenv("WEATHER_BASE_URL"), "https://wttr.in")
	client := &http.Client{}

	s := mcp.NewServer(&mcp.Implementation{Name: "toolhost-examples", Version: "1.0.0"}, &mcp.ServerOptions{
		Instructions:      "Hot lists, time, greetings, files and commands.",
		CompletionHandler: completeExamples,
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "getBaiduHotspot",
		Title:       "Baidu hot list",
		Description: "Get Baidu Hot News List: realtime hot search topics, hottest first.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(true)},
		InputSchema: inputSchema[hotlistIn](func(p map[string]*jsonschema.Schema) {
			p["limit"].Default = json.RawMessage(`10`)
			p["limit"].Minimum = new(1.0)
			p["limit"].Maximum = new(50.0)
		}),
	}, func(ctx context.Context, req *mcp.CallToolRequest, in hotlistIn) (*mcp.CallToolResult, hotlistOut, error) {
		body, _, err := httpGet(ctx, client, hotlistBase+"/api/hotlist/baiduRD", "application/json", 10*time.Second)
		if err != nil {
			return nil, hotlistOut{}, err
		}
		var doc struct {
			UpdateTime string  `json:"update_time"`
			Data       []topic `json:"data"`
		}
		if err := json.Unmarshal(body, &doc); err != nil {
			return nil, hotlistOut{}, fmt.Errorf("the hot list is not the JSON expected: %w", err)
		}
		out := hotlistOut{UpdatedAt: doc.UpdateTime, Topics: []topic{}}
		for _, t := range doc.Data {
			if t.Index <= float64(in.Limit) {
				out.Topics = append(out.Topics, t)
			}
		}
		return nil, out, nil
	})

	mcp.AddTool(s, &mcp.Tool{Name: "say_hello", Description: "Returns a friendly greeting"},
		func(ctx context.Context, req *mcp.CallToolRequest, in helloIn) (*mcp.CallToolResult, any, error) {
			return text("hello " + in.Name), nil, nil
		})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "get_current_time",
		Description: "Current date and time",
		InputSchema: inputSchema[timeIn](func(p map[string]*jsonschema.Schema) {
			p["format"].Enum = []any{"simple", "detailed"}
			p["format"].Default = json.RawMessage(`"simple"`)
		}),
	}, func(ctx context.Context, req *mcp.CallToolRequest, in timeIn) (*mcp.CallToolResult, any, error) {
		now := time.Now()
		if in.Format == "simple" {
			return text(now.Format("2006-01-02 15:04:05")), nil, nil
		}
		return text(now.Format("Monday, 02 January 2006 15:04:05 MST")), nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: "Echo input"},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			out, err := runCommand(ctx, 5*time.Second, "", "", "printf", "%s", in.Text)
			if err != nil {
				return nil, nil, err
			}
			return text(out), nil, nil
		})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "create_file",
		Description: "Create a file in the workspace folder and write the content into it.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(false)},
		InputSchema: inputSchema[createFileIn](func(p map[string]*jsonschema.Schema) {
			p["filename"].Pattern = fileNameRe
			p["content"].MaxLength = new(1048576)
		}),
	}, func(ctx context.Context, req *mcp.CallToolRequest, in createFileIn) (*mcp.CallToolResult, any, error) {
		out, err := runCommand(ctx, 5*time.Second, workspaceDir, in.Content,
			"sh", "-c", `cat > "$1" && printf 'created %s (%s bytes)' "$1" "$(wc -c < "$1" | tr -d ' ')"`, "create_file", in.Filename)
		if err != nil {
			return nil, nil, err
		}
		return text(out), nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "get_weather",
		Description: "Current weather for a city: temperature, conditions and humidity.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(true)},
		InputSchema: inputSchema[weatherIn](func(p map[string]*jsonschema.Schema) {
			p["city"].MinLength = new(1)
			p["city"].MaxLength = new(100)
			p["unit"].Enum = []any{"celsius", "fahrenheit"}
			p["unit"].Default = json.RawMessage(`"celsius"`)
		}),
	}, func(ctx context.Context, req *mcp.CallToolRequest, in weatherIn) (*mcp.CallToolResult, weatherOut, error) {
		body, _, err := httpGet(ctx, client, weatherBase+"/"+url.PathEscape(in.City)+"?format=j1", "", 10*time.Second)
		if err != nil {
			return nil, weatherOut{}, err
		}
		var doc struct {
			CurrentCondition []struct {
				TempC       string `json:"temp_C"`
				TempF       string `json:"temp_F"`
				Humidity    string `json:"humidity"`
				WeatherDesc []struct {
					Value string `json:"value"`
				} `json:"weatherDesc"`
			} `json:"current_condition"`
			NearestArea []struct {
				AreaName []struct {
					Value string `json:"value"`
				} `json:"areaName"`
			} `json:"nearest_area"`
		}
		if err := json.Unmarshal(body, &doc); err != nil {
			return nil, weatherOut{}, fmt.Errorf("the weather is not the JSON expected: %w", err)
		}
		if len(doc.CurrentCondition) == 0 || len(doc.CurrentCondition[0].WeatherDesc) == 0 {
			return nil, weatherOut{}, errors.New("the weather has no current condition")
		}
		cur := doc.CurrentCondition[0]
		temp := cur.TempC
		if in.Unit == "fahrenheit" {
			temp = cur.TempF
		}
		var out weatherOut
		if out.Temperature, err = strconv.ParseFloat(temp, 64); err != nil {
			return nil, weatherOut{}, fmt.Errorf("temperature %q is not a number", temp)
		}
		if out.Humidity, err = strconv.Atoi(cur.Humidity); err != nil {
			return nil, weatherOut{}, fmt.Errorf("humidity %q is not an integer", cur.Humidity)
		}
		out.Conditions = cur.WeatherDesc[0].Value
		if len(doc.NearestArea) > 0 && len(doc.NearestArea[0].AreaName) > 0 {
			out.City = doc.NearestArea[0].AreaName[0].Value
		}
		return nil, out, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "get_weather_map",
		Description: "A picture (PNG) of the weather forecast for a city, with a caption.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(true)},
		InputSchema: inputSchema[cityIn](func(p map[string]*jsonschema.Schema) {
			p["city"].MinLength = new(1)
			p["city"].MaxLength = new(100)
		}),
	}, func(ctx context.Context, req *mcp.CallToolRequest, in cityIn) (*mcp.CallToolResult, any, error) {
		body, ctype, err := httpGet(ctx, client, weatherBase+"/"+url.PathEscape(in.City)+".png", "", 15*time.Second)
		if err != nil {
			return nil, nil, err
		}
		if !strings.HasPrefix(ctype, "image/") {
			ctype = "image/png"
		}
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: in.City + "天气预报"},
			&mcp.ImageContent{Data: body, MIMEType: ctype},
		}}, nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "count_files",
		Description: "Count the files in the notes folder, slowly, reporting progress.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
		InputSchema: inputSchema[countIn](func(p map[string]*jsonschema.Schema) {
			p["delay"].Default = json.RawMessage(`0.2`)
			p["delay"].Minimum = new(0.0)
			p["delay"].Maximum = new(2.0)
		}),
	}, countFiles)

	mcp.AddTool(s, &mcp.Tool{
		Name:        "get_report",
		Description: "The Q4 report, embedded, with a link to it.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, func(ctx context.Context, req *mcp.CallToolRequest, in noIn) (*mcp.CallToolResult, any, error) {
		b, err := os.ReadFile(reportFile)
		if err != nil {
			return nil, nil, err
		}
		return &mcp.CallToolResult{Content: []mcp.Content{
			&mcp.TextContent{Text: "The fourth-quarter report:"},
			&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: reportURI, MIMEType: "text/markdown", Text: string(b)}},
			&mcp.ResourceLink{URI: reportURI, Name: "q4_report", Title: "Q4 report", Description: "Fourth-quarter financial report", MIMEType: "text/markdown"},
		}}, nil, nil
	})

	mcp.AddTool(s, &mcp.Tool{
		Name:        "delete_file",
		Description: "Delete a file from the workspace folder, after asking the user.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(true)},
		InputSchema: inputSchema[deleteFileIn](func(p map[string]*jsonschema.Schema) {
			p["filename"].Pattern = fileNameRe
		}),
	}, func(ctx context.Context, req *mcp.CallToolRequest, in deleteFileIn) (*mcp.CallToolResult, any, error) {
		question := "Delete " + in.Filename + " from the workspace?"
		ip := req.Session.InitializeParams()
		if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil {
			return nil, nil, fmt.Errorf("the tool delete_file needs the user's confirmation (%q) and this client cannot ask, so it did not run", question)
		}
		res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: question, RequestedSchema: json.RawMessage(`{"type":"object","properties":{}}`)})
		if err != nil {
			return nil, nil, fmt.Errorf("asking the user failed: %w", err)
		}
		if res.Action != "accept" {
			return nil, nil, fmt.Errorf("the user answered %s to %q, so the tool delete_file did not run", res.Action, question)
		}
		out, err := runCommand(ctx, 5*time.Second, workspaceDir, "",
			"sh", "-c", `rm -- "$1" && printf 'deleted %s' "$1"`, "delete_file", in.Filename)
		if err != nil {
			return nil, nil, err
		}
		return text(out), nil, nil
	})

	s.AddResource(&mcp.Resource{
		URI:         reportURI,
		Name:        "q4_report",
		Title:       "Q4 report",
		Description: "Fourth-quarter financial report",
		MIMEType:    "text/markdown",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		b, err := os.ReadFile(reportFile)
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: string(b)}}}, nil
	})

	s.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "notes",
		URITemplate: "notes:///{path}",
		Description: "Markdown notes",
		MIMEType:    "text/markdown",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		p, err := url.PathUnescape(strings.TrimPrefix(req.Params.URI, "notes:///"))
		if err != nil || !filepath.IsLocal(p) {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		b, err := os.ReadFile(filepath.Join(notesDir, p))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, mcp.ResourceNotFoundError(req.Params.URI)
		}
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/markdown", Text: string(b)}}}, nil
	})

	s.AddPrompt(&mcp.Prompt{
		Name:        "summarize_hotlist",
		Description: "Summarize today's hot topics",
		Arguments:   []*mcp.PromptArgument{{Name: "count", Description: "How many topics to cover"}},
	}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		count := cmp.Or(req.Params.Arguments["count"], "10")
		return &mcp.GetPromptResult{
			Description: "Summarize today's hot topics",
			Messages: []*mcp.PromptMessage{{
				Role:    "user",
				Content: &mcp.TextContent{Text: "Call getBaiduHotspot with limit " + count + " and summarize the topics."},
			}},
		}, nil
	})
	return s
}

// completeExamples offers the completions of summarize_hotlist's count.
func completeExamples(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	values := []string{}
	p := req.Params
	if p.Ref != nil && p.Ref.Type == "ref/prompt" && p.Ref.Name == "summarize_hotlist" && p.Argument.Name == "count" {
		for _, v := range []string{"5", "10", "20", "50"} {
			if strings.HasPrefix(v, p.Argument.Value) {
				values = append(values, v)
			}
		}
	}
	return &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: values}}, nil
}

// countFiles runs count_files' command: "::progress I/N MESSAGE" lines on
// its stderr become progress notifications, the other lines log messages.
func countFiles(ctx context.Context, req *mcp.CallToolRequest, in countIn) (*mcp.CallToolResult, any, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c",
		`set -- notes/*; n=$#; i=0; for f in "$@"; do i=$((i+1)); echo "::progress $i/$n $f" >&2; echo "counted $f" >&2; sleep "$0"; done; echo "$n files"`,
		strconv.FormatFloat(in.Delay, 'f', -1, 64))
	var out bytes.Buffer
	cmd.Stdout = &out
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	token := req.Params.GetProgressToken()
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "::progress "); ok {
			frac, msg, _ := strings.Cut(rest, " ")
			i, n, _ := strings.Cut(frac, "/")
			done, err1 := strconv.ParseFloat(i, 64)
			total, err2 := strconv.ParseFloat(n, 64)
			if token != nil && err1 == nil && err2 == nil {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: done, Total: total, Message: msg})
			}
			continue
		}
		_ = req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "count_files", Data: line})
	}
	if err := cmd.Wait(); err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return nil, nil, errors.New("count_files timed out after 60s")
		}
		return nil, nil, fmt.Errorf("count_files: %w", err)
	}
	return text(out.String()), nil, nil
}

// runCommand runs argv in dir with stdin, for at most timeout, and returns
// its standard output; an error carries its standard error.
func runCommand(ctx context.Context, timeout time.Duration, dir, stdin string, argv ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			return "", fmt.Errorf("%s timed out after %s", argv[0], timeout)
		}
		return "", fmt.Errorf("%s: %v: %s", argv[0], err, strings.TrimSpace(errOut.String()))
	}
	return out.String(), nil
}

// httpGet GETs u, for at most timeout, and returns the body and its
// Content-Type; a status other than 200 is an error.
func httpGet(ctx context.Context, client *http.Client, u, accept string, timeout time.Duration) ([]byte, string, error) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, "", err
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("upstream returned %s", resp.Status)
	}
	body, err := io.ReadAll(resp.Body)
	return body, resp.Header.Get("Content-Type"), err
}
