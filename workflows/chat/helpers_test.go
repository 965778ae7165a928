package chatwf

import (
	"errors"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
)

func asApp(err error, out *interface {
	Type() string
	NextRetryDelay() time.Duration
}) bool {
	var ae *temporal.ApplicationError
	if !errors.As(err, &ae) {
		return false
	}
	*out = ae
	return true
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
