package worker

import (
	"context"
	"errors"

	"go.temporal.io/api/serviceerror"
)

// permanentError marks a dispatch failure no retry can fix.
type permanentError struct{ err error }

func (e permanentError) Error() string { return "permanent: " + e.err.Error() }
func (e permanentError) Unwrap() error { return e.err }

// Permanent marks err as a dispatch failure that no retry can fix (a payload
// that does not decode, a job naming another org): the relay parks the row
// at once (status dead, logged, counted in outbox_parked_total) instead of
// retrying it. Every feature's Dispatch classifies its errors with it; any
// other error is retried with backoff and parked only after MaxAttempts.
func Permanent(err error) error {
	if err == nil {
		return nil
	}
	return permanentError{err}
}

// IsPermanent reports whether err, or an error it wraps, was marked with
// Permanent.
func IsPermanent(err error) bool {
	var p permanentError
	return errors.As(err, &p)
}

// unavailable reports whether err says Temporal could not be reached or did
// not answer in time: not the row's fault, so it costs the row no attempt
// (an outage of any length parks nothing) and the relay backs off instead.
func unavailable(err error) bool {
	var u *serviceerror.Unavailable
	var d *serviceerror.DeadlineExceeded
	return errors.As(err, &u) || errors.As(err, &d) || errors.Is(err, context.DeadlineExceeded)
}
