package worker

import (
	"context"
	"errors"

	"go.temporal.io/api/serviceerror"
)

// unavailable reports whether err says Temporal could not be reached or did
// not answer in time: not the row's fault, so it costs the row no attempt
// (an outage of any length parks nothing) and the relay backs off instead.
func unavailable(err error) bool {
	var u *serviceerror.Unavailable
	var d *serviceerror.DeadlineExceeded
	return errors.As(err, &u) || errors.As(err, &d) || errors.Is(err, context.DeadlineExceeded)
}
