package webhookact

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"go.temporal.io/sdk/activity"

	"tracker/domain/webhook"
	"tracker/store"
	"tracker/store/webhookdb"
)

// LostAttemptInput names an attempt whose activity never reported back.
type LostAttemptInput struct {
	Attempt DeliverInput
	Reason  string
}

// RecordLostWebhookAttempt closes the delivery row of an attempt that timed
// out or died with its worker, so the history shows every attempt. It is
// idempotent and retried until it succeeds.
func (a *Activities) RecordLostWebhookAttempt(ctx context.Context, in LostAttemptInput) error {
	err := webhookdb.MarkLost(ctx, a.DB.Q(), in.Attempt.row(), in.Reason, time.Now().UTC())
	if errors.Is(err, store.ErrInvalidRef) { // the webhook was deleted: no history to keep
		return nil
	}
	return err
}

// WebhookRef names a webhook.
type WebhookRef struct {
	OrgID     uuid.UUID
	WebhookID uuid.UUID
}

// DisableInput switches a webhook off.
type DisableInput struct {
	WebhookRef
	Reason string
}

// DisableWebhook switches a webhook off (a 410 answer).
func (a *Activities) DisableWebhook(ctx context.Context, in DisableInput) error {
	activity.GetLogger(ctx).Warn("webhook disabled", "webhook_id", in.WebhookID, "reason", in.Reason)
	return webhookdb.Disable(ctx, a.DB.Q(), in.OrgID, in.WebhookID, in.Reason, time.Now().UTC())
}

// ExhaustedResult tells whether the webhook was switched off.
type ExhaustedResult struct {
	ConsecutiveFailures int
	Disabled            bool
}

// RecordWebhookExhausted counts a delivery that used up every attempt and
// switches the webhook off after webhook.AutoDisableAfter in a row.
//
// Not idempotent on its own (a retry after a lost reply counts twice); the
// count only feeds a threshold, so that is accepted.
func (a *Activities) RecordWebhookExhausted(ctx context.Context, in WebhookRef) (ExhaustedResult, error) {
	now := time.Now().UTC()
	n, err := webhookdb.RecordExhausted(ctx, a.DB.Q(), in.OrgID, in.WebhookID, now)
	if err != nil {
		return ExhaustedResult{}, ignoreGone(err)
	}
	res := ExhaustedResult{ConsecutiveFailures: n}
	if n >= webhook.AutoDisableAfter {
		reason := fmt.Sprintf("disabled after %d deliveries in a row failed every attempt", n)
		if err := webhookdb.Disable(ctx, a.DB.Q(), in.OrgID, in.WebhookID, reason, now); err != nil {
			return res, err
		}
		res.Disabled = true
		activity.GetLogger(ctx).Warn("webhook auto-disabled", "webhook_id", in.WebhookID, "failures", n)
	}
	return res, nil
}

// ignoreGone treats a row that disappeared (a webhook deleted while its
// delivery ran) as nothing to do.
func ignoreGone(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}
