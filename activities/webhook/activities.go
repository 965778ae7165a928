// Package webhookact holds the activities of webhook delivery: one signed
// HTTP attempt recorded as a delivery row (also made directly by the relay
// for a delivery's first attempt), and the webhook's books (lost attempts,
// 410 Gone, auto-disable). The workflow that orders them is
// tracker/workflows/webhook. Activity names (the method names) are unique
// across the worker and must not change: histories in flight name them.
package webhookact

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"
	"go.temporal.io/sdk/activity"

	"tracker/domain"
	"tracker/domain/webhook"
	"tracker/internal/safehttp"
	"tracker/internal/tracing"
	"tracker/store"
	"tracker/store/outboxdb"
	"tracker/store/webhookdb"
)

// Activities delivers events to webhooks and keeps their books.
type Activities struct {
	DB   *store.DB
	HTTP *http.Client // safehttp.NewClient (SSRF-guarded)
	// Attempts counts attempts by outcome and by who made them (relay:
	// a first attempt; workflow: a retry); nil counts nothing. Its
	// family is webhook_attempts_total{outcome, by}.
	Attempts *prometheus.CounterVec
	// Tracing makes a client span of each POST, a child of the caller's
	// span (the relay's outbox dispatch for a first attempt, Temporal's
	// RunActivity for a retry), and sends its traceparent (nil: neither).
	Tracing *tracing.Tracing
}

// NewAttemptsCounter is webhook_attempts_total{outcome, by}, registered on
// reg (nil: not registered).
func NewAttemptsCounter(reg prometheus.Registerer) *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "webhook_attempts_total",
		Help: "Webhook delivery attempts by outcome (delivered, failed, gone, skipped) and by who made them (relay, workflow)."},
		[]string{"outcome", "by"})
	if reg == nil {
		return c
	}
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) { // a worker restarted in the same process
			if prev, ok := are.ExistingCollector.(*prometheus.CounterVec); ok {
				return prev
			}
		}
		return c // counted, not exported
	}
	return c
}

// count records an attempt's outcome.
func (a *Activities) count(res DeliverResult, by string) {
	if a.Attempts != nil && res.RecordID != uuid.Nil {
		a.Attempts.WithLabelValues(res.Outcome, by).Inc()
	}
}

// Outcomes of one delivery attempt.
const (
	OutcomeDelivered = "delivered" // 2xx
	OutcomeFailed    = "failed"    // any other answer, or no answer: try again later
	OutcomeGone      = "gone"      // 410: the receiver asks to be switched off
	OutcomeSkipped   = "skipped"   // the webhook or the event no longer exists, or is inactive
)

// DeliverInput names one attempt.
type DeliverInput struct {
	OrgID      uuid.UUID
	WebhookID  uuid.UUID
	EventID    uuid.UUID
	EventType  string
	Redelivery int
	Attempt    int // from 1
}

// DeliverResult is one attempt's outcome.
type DeliverResult struct {
	Outcome    string
	StatusCode int
	Reason     string
	RecordID   uuid.UUID // the webhook_deliveries row
}

func (in DeliverInput) row() webhookdb.Delivery {
	return webhookdb.Delivery{ID: domain.NewID(), OrgID: in.OrgID, WebhookID: in.WebhookID, EventID: in.EventID,
		EventType: in.EventType, DeliveryKey: webhook.DeliveryKey(in.EventID, in.WebhookID),
		Redelivery: in.Redelivery, Attempt: in.Attempt, CreatedAt: time.Now().UTC()}
}

// DeliverWebhook makes one signed POST of the event to the webhook and
// records it as a delivery row. It runs with a single Temporal attempt: the
// workflow owns the retry schedule.
func (a *Activities) DeliverWebhook(ctx context.Context, in DeliverInput) (DeliverResult, error) {
	res, err := a.attempt(ctx, in, nil, nil)
	if err == nil {
		a.count(res, "workflow")
	}
	if err == nil && res.RecordID != uuid.Nil {
		activity.GetLogger(ctx).Info("webhook attempt", "webhook_id", in.WebhookID, "event_id", in.EventID,
			"attempt", in.Attempt, "redelivery", in.Redelivery, "status", res.StatusCode, "outcome", res.Outcome)
	}
	return res, err
}

// Attempt makes one attempt and records it, idempotently: an attempt
// already recorded as finished is reported, never posted again; one
// recorded as started but never finished (its process died mid-request)
// is posted again under the same delivery id (at least once). The relay
// calls it for a delivery's first attempt, with the webhook and the event's
// payload it has just read; DeliverWebhook, the activity, for the attempts
// Temporal schedules.
func (a *Activities) Attempt(ctx context.Context, in DeliverInput, w webhookdb.Row, payload []byte) (DeliverResult, error) {
	res, err := a.attempt(ctx, in, &w, payload)
	if err == nil {
		a.count(res, "relay")
	}
	return res, err
}

// attempt reads the webhook and the event's payload unless the caller
// passes them.
func (a *Activities) attempt(ctx context.Context, in DeliverInput, w *webhookdb.Row, payload []byte) (DeliverResult, error) {
	if w == nil {
		row, err := webhookdb.Get(ctx, a.DB.Q(), in.OrgID, in.WebhookID)
		if errors.Is(err, store.ErrNotFound) {
			return DeliverResult{Outcome: OutcomeSkipped, Reason: "webhook deleted"}, nil
		} else if err != nil {
			return DeliverResult{}, err
		}
		w = &row
	}
	if !w.Active {
		return DeliverResult{Outcome: OutcomeSkipped, Reason: "webhook inactive"}, nil
	}
	if payload == nil {
		ev, err := outboxdb.Get(ctx, a.DB.Q(), in.OrgID, in.EventID)
		if errors.Is(err, store.ErrNotFound) {
			return DeliverResult{Outcome: OutcomeSkipped, Reason: "event not found"}, nil
		} else if err != nil {
			return DeliverResult{}, err
		}
		payload = ev.Payload
	}
	var body bytes.Buffer
	if err := json.Compact(&body, payload); err != nil {
		return DeliverResult{}, fmt.Errorf("event payload: %w", err)
	}
	rec, err := webhookdb.StartAttempt(ctx, a.DB.Q(), in.row())
	if errors.Is(err, store.ErrInvalidRef) { // deleted since it was read
		return DeliverResult{Outcome: OutcomeSkipped, Reason: "webhook deleted"}, nil
	} else if err != nil {
		return DeliverResult{}, err
	}
	if rec.FinishedAt != nil { // recorded before: report it, never post twice
		return resultOf(rec), nil
	}
	out := a.post(ctx, *w, in, body.Bytes())
	res := DeliverResult{Outcome: OutcomeFailed, RecordID: rec.ID}
	if out.StatusCode != nil {
		res.StatusCode = *out.StatusCode
	}
	if out.Error != nil {
		res.Reason = *out.Error
	}
	switch {
	case res.StatusCode >= 200 && res.StatusCode < 300:
		res.Outcome = OutcomeDelivered
	case res.StatusCode == http.StatusGone:
		res.Outcome = OutcomeGone
	}
	// The books are written with a fresh context: the attempt happened even
	// if the activity is being cancelled.
	bctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := webhookdb.FinishAttempt(bctx, a.DB.Q(), in.OrgID, rec.ID, out); err != nil { // a 2xx ends a failure streak
		return DeliverResult{}, err
	}
	return res, nil
}

func resultOf(d webhookdb.Delivery) DeliverResult {
	res := DeliverResult{Outcome: OutcomeFailed, RecordID: d.ID}
	if d.StatusCode != nil {
		res.StatusCode = *d.StatusCode
	}
	if d.Error != nil {
		res.Reason = *d.Error
	}
	switch {
	case res.StatusCode >= 200 && res.StatusCode < 300:
		res.Outcome = OutcomeDelivered
	case res.StatusCode == http.StatusGone:
		res.Outcome = OutcomeGone
	}
	return res
}

// post sends the signed request and describes what came back.
func (a *Activities) post(ctx context.Context, w webhookdb.Row, in DeliverInput, body []byte) webhookdb.Outcome {
	started := time.Now()
	out := webhookdb.Outcome{}
	finish := func() webhookdb.Outcome {
		out.FinishedAt = time.Now().UTC()
		out.DurationMS = int(time.Since(started).Milliseconds())
		return out
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.URL, bytes.NewReader(body))
	if err != nil {
		out.Error = ptr("invalid webhook URL")
		return finish()
	}
	req.Header = webhook.SignedHeaders(w.Secret, in.EventType, webhook.DeliveryKey(in.EventID, in.WebhookID), started, body)
	req.Header.Set("User-Agent", "tracker-webhooks/1")
	var span trace.Span
	if a.Tracing.Enabled() {
		var sctx context.Context
		// The host only: a webhook URL's path or query may hold a credential.
		sctx, span = a.Tracing.Tracer("tracker/webhooks").Start(ctx, http.MethodPost, trace.WithSpanKind(trace.SpanKindClient),
			trace.WithAttributes(semconv.HTTPRequestMethodKey.String(http.MethodPost), semconv.ServerAddress(req.URL.Hostname()),
				attribute.String("webhook.id", in.WebhookID.String()), attribute.String("webhook.event_id", in.EventID.String()),
				attribute.Int("webhook.attempt", in.Attempt)))
		defer span.End()
		a.Tracing.Propagator.Inject(sctx, propagation.HeaderCarrier(req.Header))
		req = req.WithContext(sctx)
	}
	resp, err := a.HTTP.Do(req)
	if err != nil {
		out.Error = ptr(transportError(err))
		if span != nil {
			span.SetStatus(codes.Error, *out.Error)
		}
		return finish()
	}
	if span != nil {
		span.SetAttributes(semconv.HTTPResponseStatusCode(resp.StatusCode))
		if resp.StatusCode >= 400 {
			span.SetStatus(codes.Error, "")
		}
	}
	defer resp.Body.Close()
	excerpt, _ := io.ReadAll(io.LimitReader(resp.Body, webhook.ExcerptLimit))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
	out.StatusCode = &resp.StatusCode
	if len(excerpt) > 0 {
		out.ResponseExcerpt = ptr(cleanText(string(excerpt)))
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		out.Error = ptr(fmt.Sprintf("receiver answered %d", resp.StatusCode))
		if loc := resp.Header.Get("Location"); loc != "" && resp.StatusCode >= 300 && resp.StatusCode < 400 {
			out.Error = ptr(fmt.Sprintf("receiver answered %d (redirects are not followed)", resp.StatusCode))
		}
	}
	return finish()
}

// transportError describes a failed request without echoing the URL, which
// may carry credentials.
func transportError(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		if ue.Timeout() {
			return fmt.Sprintf("no answer within %s", webhook.AttemptTimeout)
		}
		err = ue.Err
	}
	if errors.Is(err, safehttp.ErrForbiddenAddress) {
		return "refused: " + err.Error()
	}
	return cleanText(err.Error())
}

// cleanText makes text storable in a PostgreSQL text column.
func cleanText(s string) string {
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\uFFFD"), "\x00", "")
}

func ptr[T any](v T) *T { return &v }
