// Package api is the Fiber edge of the service: the app, middleware, the
// error envelope, request binding and pagination. Feature packages under
// api/ register their routes on it.
package api

import (
	"errors"
	"log/slog"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"tracker/domain"
)

// ErrorBody is the spec's error envelope.
type ErrorBody struct {
	Error ErrorDetail `json:"error"`
}

// ErrorDetail is the inside of the envelope.
type ErrorDetail struct {
	Code    string   `json:"code"`
	Message string   `json:"message"`
	Details []string `json:"details"`
}

var kindStatus = map[domain.Kind]struct {
	status int
	code   string
}{
	domain.KindValidation:         {fiber.StatusUnprocessableEntity, "VALIDATION_ERROR"},
	domain.KindNotFound:           {fiber.StatusNotFound, "not_found"},
	domain.KindForbidden:          {fiber.StatusForbidden, "FORBIDDEN"},
	domain.KindConflict:           {fiber.StatusConflict, "CONFLICT"},
	domain.KindUnauthorized:       {fiber.StatusUnauthorized, "unauthorized"},
	domain.KindBadRequest:         {fiber.StatusBadRequest, "BAD_REQUEST"},
	domain.KindRateLimited:        {fiber.StatusTooManyRequests, "RATE_LIMITED"},
	domain.KindUnavailable:        {fiber.StatusServiceUnavailable, "SERVICE_UNAVAILABLE"},
	domain.KindInternal:           {fiber.StatusInternalServerError, "INTERNAL"},
	domain.KindTooLarge:           {fiber.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE"},
	domain.KindPreconditionFailed: {fiber.StatusPreconditionFailed, "PRECONDITION_FAILED"},
}

// ErrorHandler is the one place that writes error bodies: it maps the
// domain's closed error set (and Fiber's own routing errors) to the envelope
// and logs internal errors with the request id; their text never reaches the
// client.
func ErrorHandler(log *slog.Logger) fiber.ErrorHandler {
	return func(c *fiber.Ctx, err error) error {
		de := fromFiber(err)
		if de == nil {
			de = domain.AsError(err)
		}
		m := kindStatus[de.Kind]
		switch {
		case de.Kind == domain.KindInternal:
			log.ErrorContext(c.UserContext(), "request failed", "request_id", RequestID(c),
				"method", c.Method(), "path", c.Path(), "error", err.Error())
		case de.RetryAfter > 0 && de.Kind == domain.KindUnavailable:
			// A statement cancelled by the statement timeout, or the
			// database out of reach: the operator sees which requests run
			// long, and when the database went away.
			msg := "request cancelled by the database statement timeout"
			if de.Message == domain.DatabaseUnavailableMessage {
				msg = "request failed: the database is unavailable"
			}
			log.WarnContext(c.UserContext(), msg, "request_id", RequestID(c),
				"method", c.Method(), "path", c.Path(), "error", err.Error())
		}
		if de.RetryAfter > 0 {
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(de.RetryAfter))
		}
		if isSCIM(c) {
			return writeSCIMError(c, de, err)
		}
		details := de.Details
		if details == nil {
			details = []string{}
		}
		return c.Status(m.status).JSON(ErrorBody{Error: ErrorDetail{Code: m.code, Message: de.Message, Details: details}})
	}
}

func fromFiber(err error) *domain.Error {
	var fe *fiber.Error
	if !errors.As(err, &fe) {
		return nil
	}
	switch {
	case fe.Code == fiber.StatusNotFound:
		return &domain.Error{Kind: domain.KindNotFound, Message: "route not found"}
	case fe.Code == fiber.StatusMethodNotAllowed:
		return &domain.Error{Kind: domain.KindNotFound, Message: "route not found"}
	case fe.Code == fiber.StatusRequestEntityTooLarge:
		return &domain.Error{Kind: domain.KindTooLarge, Message: "request body too large"}
	case fe.Code == fiber.StatusTooManyRequests:
		return &domain.Error{Kind: domain.KindRateLimited, Message: "too many requests; retry later"}
	case fe.Code >= 400 && fe.Code < 500:
		return &domain.Error{Kind: domain.KindBadRequest, Message: fe.Message}
	}
	return nil
}
