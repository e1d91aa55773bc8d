package tasks

import "fmt"

// CodeInternalError is the JSON-RPC code of a task that failed inside the
// server (its replica stopped, the server shut down, its result could not
// be kept).
const CodeInternalError = -32603

// SettleFailed sets t failed with e, dropping any result or input requests.
// It is for Update's fn and for stores' Reap.
func SettleFailed(t *Task, e *Error) {
	t.Status = Failed
	t.StatusMessage = e.Message
	t.Error = e
	t.Result = nil
	t.InputRequests = nil
	t.InputResponses = nil
}

// LostOwnerError is the error of a task whose replica stopped renewing its
// lease (it crashed or lost the store) before the task finished.
func LostOwnerError(owner string) *Error {
	return &Error{
		Code:    CodeInternalError,
		Message: fmt.Sprintf("The server replica running this task (%s) stopped before it finished; call the tool again.", owner),
	}
}
