// Package deliveryact holds the side effects of delivering personal
// notifications: sending a digest by SMTP (go-mail), and the due-soon
// sweep.
package deliveryact

import (
	"context"
	"errors"

	"github.com/google/uuid"

	"tracker/domain/delivery"
	"tracker/domain/notification"
)

// Prefix is prepended to the activity method names at registration.
const Prefix = "NotifyDelivery."

// Activity names as registered.
const (
	DigestMinutesName = Prefix + "DigestMinutes"
	SendDigestName    = Prefix + "SendDigest"
	SweepDueSoonName  = Prefix + "SweepDueSoon"
)

// Activities send digests and sweep due dates; methods take one input
// struct.
type Activities struct {
	Delivery *delivery.Service
	// Notifications runs the due-soon sweep.
	Notifications *notification.Service
	// Mailer sends email (nil: email is off, a digest sends nothing).
	Mailer Mailer
}

// UserInput names a digest's recipient.
type UserInput struct {
	UserID uuid.UUID `json:"user_id"`
}

// DigestMinutes reads the recipient's digest window now.
func (a *Activities) DigestMinutes(ctx context.Context, in UserInput) (int, error) {
	return a.Delivery.DigestMinutes(ctx, in.UserID)
}

// SendInput is one digest: its recipient and the notifications collected.
type SendInput struct {
	UserID uuid.UUID   `json:"user_id"`
	IDs    []uuid.UUID `json:"ids"`
}

// SendResult is what a digest did.
type SendResult struct {
	Sent    int  `json:"sent"`    // notifications carried by the email
	Skipped int  `json:"skipped"` // dropped at send time
	Refused bool `json:"refused"` // the address was refused for good: email is now off
}

// SendDigest decides the digest at send time (delivery.PlanDigest), sends
// it and records the outcome, so a rerun after success sends nothing. A
// permanent refusal of the address turns the user's email off (with the
// server's answer as the reason) and ends the digest without an error;
// any other failure is returned for the workflow's retry policy.
func (a *Activities) SendDigest(ctx context.Context, in SendInput) (SendResult, error) {
	if a.Mailer == nil {
		return SendResult{}, nil
	}
	p, err := a.Delivery.PlanDigest(ctx, in.UserID, in.IDs)
	if err != nil {
		return SendResult{}, err
	}
	if p.Email == nil {
		return SendResult{Skipped: len(p.Skip)}, a.Delivery.Done(ctx, in.UserID, nil, p.Skip)
	}
	err = a.Mailer.Send(ctx, *p.Email)
	var refused *RefusedError
	if errors.As(err, &refused) {
		if err := a.Delivery.Refused(ctx, in.UserID, refused.Answer); err != nil {
			return SendResult{}, err
		}
		return SendResult{Skipped: len(in.IDs), Refused: true}, a.Delivery.Done(ctx, in.UserID, nil, in.IDs)
	}
	if err != nil {
		return SendResult{}, err
	}
	return SendResult{Sent: len(p.Send), Skipped: len(p.Skip)}, a.Delivery.Done(ctx, in.UserID, p.Send, p.Skip)
}

// SweepDueSoon writes the due_soon notifications of tickets due tomorrow
// (notification.Service.SweepDueSoon: idempotent per person, ticket and
// due date); it returns how many it wrote.
func (a *Activities) SweepDueSoon(ctx context.Context) (int, error) {
	return a.Notifications.SweepDueSoon(ctx)
}
