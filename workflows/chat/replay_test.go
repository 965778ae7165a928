package chatwf_test

import (
	"testing"

	sdkworker "go.temporal.io/sdk/worker"

	chatwf "tracker/workflows/chat"
	"tracker/workflows/workflowtest"
)

// TestReplayCapturedHistories replays the runs captured in testdata
// against the workflows as they are now (workflowtest.Replay).
func TestReplayCapturedHistories(t *testing.T) {
	workflowtest.Replay(t, map[string]string{
		"chat_notification_gone.json":   chatwf.WorkflowName,
		"chat_notification_posted.json": chatwf.WorkflowName,
		"chat_command_followup.json":    chatwf.FollowupWorkflowName,
		"chat_reply_comment.json":       chatwf.ReplyWorkflowName,
	}, func(r sdkworker.Registry) { chatwf.RegisterOn(r, nil) })
}
