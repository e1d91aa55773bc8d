package tasks_test

import (
	"context"
	"strings"
	"testing"

	"github.com/toolhost/toolhost/internal/tasks"
	"github.com/toolhost/toolhost/internal/tasks/storetest"
)

// TestMemory runs the store behaviour tests against the memory store.
func TestMemory(t *testing.T) {
	storetest.Run(t, func(_ *testing.T, o tasks.Options) tasks.Store { return tasks.NewMemory(o) })
}

// TestOpen checks the values --task-store takes and the errors of others.
func TestOpen(t *testing.T) {
	tests := []struct{ spec, wantErr string }{
		{"", ""},
		{"memory", ""},
		{"nosuch://u:secret@host/0", "no task store for nosuch:// URLs"},
		{"memroy", "neither \"memory\" nor a URL"},
		{"redis://:se/cr#et@host:6379/0", "percent-encode"},
		{"redis://:secret@host:port/0", "not a valid URL"},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			s, err := tasks.Open(context.Background(), tc.spec, tasks.Options{})
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				_ = s.Close()
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) || strings.Contains(err.Error(), "secret") {
				t.Fatalf("got %v, want %q without the password", err, tc.wantErr)
			}
		})
	}
}
