package store

import (
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// The store's closed error set; nothing above store sees a pgx error.
var (
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("conflict")
	// ErrInvalidRef is a foreign key that points at nothing.
	ErrInvalidRef = errors.New("invalid reference")
	// ErrInvalidInput is a value PostgreSQL refuses to store or compare (a
	// NUL byte, invalid UTF-8, a string too long for its column, a number
	// out of range, an impossible date): the caller's input, never a 5xx.
	ErrInvalidInput = errors.New("invalid input value")
	// ErrStatementTimeout is a statement the server cancelled: it ran past
	// the pool's statement_timeout (WithStatementTimeout), or an operator
	// cancelled it (SQLSTATE 57014 query_canceled).
	ErrStatementTimeout = errors.New("statement cancelled: it ran past the statement timeout")
	// ErrUnavailable is a database that cannot be reached or is going away:
	// connection refused, the server shutting down or starting up, a
	// connection lost in the middle of a statement, no connection slot
	// left. A retry succeeds once the server is back; nothing has to be
	// restarted (the pool dials again).
	ErrUnavailable = errors.New("the database is unavailable")
	// ErrClosed is work that ended because this process closed the DB
	// (Close): nothing to retry.
	ErrClosed = errors.New("the database handle is closed")
)

// IsUnavailable reports whether err is ErrUnavailable or a driver error of a
// database that cannot be reached (for SQL run without Translate): SQLSTATE
// class 08 (connection exception), 57P01-57P05 (administrator or crash
// shutdown, cannot connect now, database dropped, idle session timeout),
// 53300 (too many connections), a failed dial, or the connection lost while
// the driver read or wrote it.
func IsUnavailable(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, ErrUnavailable) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.HasPrefix(pgErr.Code, "08") || strings.HasPrefix(pgErr.Code, "57P") || pgErr.Code == "53300"
	}
	var connectErr *pgconn.ConnectError
	if errors.As(err, &connectErr) {
		return true
	}
	// The driver's own errors (SafeToRetry marks them) around a lost
	// connection: a network error, an unexpected EOF, or a connection the
	// driver already closed after such an error.
	var driverErr interface{ SafeToRetry() bool }
	if !errors.As(err, &driverErr) {
		return false
	}
	var netErr net.Error
	return errors.As(err, &netErr) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) ||
		strings.Contains(err.Error(), "conn closed")
}

// IsStatementTimeout reports whether err is ErrStatementTimeout or a driver
// error with SQLSTATE 57014 (for SQL run without Translate).
func IsStatementTimeout(err error) bool {
	if errors.Is(err, ErrStatementTimeout) {
		return true
	}
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "57014"
}

// dataExceptions are the SQLSTATEs of values the database cannot take:
// 22021 character_not_in_repertoire (NUL, invalid UTF-8), 22P05
// untranslatable_character, 22001 string_data_right_truncation, 22003
// numeric_value_out_of_range, 22008 datetime_field_overflow.
var dataExceptions = map[string]bool{"22021": true, "22P05": true, "22001": true, "22003": true, "22008": true}

// IsInvalidInput reports whether err is ErrInvalidInput or a driver error
// with one of the data-exception SQLSTATEs (for SQL run without Translate).
func IsInvalidInput(err error) bool {
	if errors.Is(err, ErrInvalidInput) {
		return true
	}
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && dataExceptions[pgErr.Code]
}

// ConstraintError carries the constraint behind ErrConflict or ErrInvalidRef,
// so the domain can name the field in its message.
type ConstraintError struct {
	Kind       error
	Constraint string
	Err        error
}

func (e *ConstraintError) Error() string {
	return fmt.Sprintf("%v: %s", e.Kind, e.Constraint)
}

func (e *ConstraintError) Is(target error) bool { return target == e.Kind }
func (e *ConstraintError) Unwrap() error        { return e.Err }

// translate is the one boundary where driver errors become store errors.
func translate(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, pgx.ErrNoRows) {
		return ErrNotFound
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "23505", "23P01":
			return &ConstraintError{Kind: ErrConflict, Constraint: pgErr.ConstraintName, Err: err}
		case "23503":
			return &ConstraintError{Kind: ErrInvalidRef, Constraint: pgErr.ConstraintName, Err: err}
		case "22021", "22P05", "22001", "22003", "22008":
			return fmt.Errorf("%w: %s", ErrInvalidInput, pgErr.Message)
		case "57014":
			return fmt.Errorf("%w (%w)", ErrStatementTimeout, err)

		case "22P02":
			// invalid text representation (e.g. a malformed uuid in a filter)
			return ErrNotFound
		}
	}
	if IsUnavailable(err) {
		return fmt.Errorf("%w (%w)", ErrUnavailable, err)
	}
	return err
}

// Translate exposes translate for store sub-packages that run raw SQL.
func Translate(err error) error { return translate(err) }
